#pragma once
// The allocator with no cache: every allocation is a cudaMalloc and every free a cudaFree
// (PYTORCH_NO_CUDA_MEMORY_CACHING=1). Also stands in for PyTorch's cudaMallocAsync backend,
// whose stream-ordered pool returns memory to the driver at stream synchronisation by default.

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <vramscope/alloc/allocator_model.hpp>

namespace vramscope::alloc {

/// Which framework setting the model stands for; changes the name and the OOM text only.
enum class exact_flavour : std::uint8_t {
  no_caching,         // PYTORCH_NO_CUDA_MEMORY_CACHING=1 ("exact")
  cuda_malloc_async,  // PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync ("torch-cuda-malloc-async")
};

struct exact_options {
  /// Bytes the model may hold: device memory minus what lives outside the allocator.
  bytes capacity = 80_GiB;
  /// Each allocation is rounded up to this (default 512 B, torch's block granularity, so that
  /// `allocated` matches the caching model's). The driver really maps large allocations in
  /// 2 MiB pages; that difference belongs to the `device` level, not to `reserved`.
  bytes granularity = 512;
  exact_flavour flavour = exact_flavour::no_caching;
  /// Printed in the OOM text ("Device limit"); 0 means capacity.
  bytes device_total = 0;
  int device = 0;
};

/// No caching: reserved == the rounded sizes of live blocks, and a free returns the memory at
/// once. A block freed after record_stream is held (active and reserved) until its streams
/// complete and a later allocate() polls them, as cudaFree waits for the device. Before an OOM
/// it waits for every pending stream event once (counted in alloc_retries).
/// Pure bookkeeping. Not thread-safe. O(1) per operation.
class exact_allocator final : public allocator_model {
 public:
  explicit exact_allocator(exact_options options);
  explicit exact_allocator(bytes capacity);
  ~exact_allocator() override;
  exact_allocator(const exact_allocator&) = delete;
  exact_allocator& operator=(const exact_allocator&) = delete;

  allocation allocate(bytes size, stream_id stream) override;
  void free(handle id) override;
  void record_stream(handle id, stream_id stream) override;
  void complete_stream(stream_id stream) override;
  void empty_cache() override;  // waits for pending events; nothing is cached
  void reset_peaks() override;
  [[nodiscard]] const allocator_stats& stats() const override;
  [[nodiscard]] std::string name() const override;  // "exact" or "torch-cuda-malloc-async"
  [[nodiscard]] std::vector<block_info> blocks() const override;
  [[nodiscard]] bytes capacity() const override;
  [[nodiscard]] std::optional<std::string> oom_message(const oom_info& info) const override;

 private:
  struct state;
  std::unique_ptr<state> state_;
};
static_assert(!std::is_abstract_v<exact_allocator>);

}  // namespace vramscope::alloc
