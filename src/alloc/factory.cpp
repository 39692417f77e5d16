#include <vramscope/alloc/factory.hpp>

#include <vramscope/alloc/caching_allocator.hpp>
#include <vramscope/alloc/exact_allocator.hpp>

namespace vramscope::alloc {

std::unique_ptr<allocator_model> make_caching_allocator(caching_allocator_options options) {
  if (options.backend == alloc_backend::cuda_malloc_async) {
    exact_options exact;
    exact.capacity = options.capacity;
    exact.flavour = exact_flavour::cuda_malloc_async;
    exact.device_total = options.device_total;
    exact.device = options.device;
    return std::make_unique<exact_allocator>(exact);
  }
  return std::make_unique<caching_allocator>(std::move(options));
}

std::unique_ptr<allocator_model> make_exact_allocator(bytes capacity) {
  return std::make_unique<exact_allocator>(capacity);
}

std::unique_ptr<allocator_model> make_bfc_allocator(bfc_options options) {
  return std::make_unique<bfc_allocator>(options);
}

}  // namespace vramscope::alloc
