// Size arithmetic of the caching allocator (round_size, roundup_power2_next_division,
// get_allocation_size, format_size in c10/cuda/CUDACachingAllocator.cpp) and its OOM text.

#include <vramscope/alloc/caching_options.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "alloc/torch_messages.hpp"

namespace vramscope::alloc {

namespace {
// roundup_power2_divisions interval of a size: floor(log2 size) - 20, clamped to [0, 15]
// (AllocatorConfig::roundup_power2_divisions; intervals start at 1 MiB).
std::uint32_t divisions_for(bytes size, const caching_allocator_options& options) {
  const int log2_size = static_cast<int>(std::bit_width(size)) - 1;
  const int index = std::clamp(log2_size - 20, 0, static_cast<int>(roundup_intervals) - 1);
  return options.roundup_power2_divisions[static_cast<std::size_t>(index)];
}
}  // namespace

bytes round_to_power2_division(bytes size, std::uint32_t divisions) {
  if (std::has_single_bit(size)) return size;
  VRAMSCOPE_EXPECTS(divisions >= 2 && std::has_single_bit(divisions),
                    "divisions must be a power of 2 >= 2");
  const bytes floor = std::bit_floor(size);
  const bytes step = floor >> std::countr_zero(divisions);
  if (step == 0) return floor << 1;
  const bytes down = size & ~(step - 1);
  return down == size ? size : down + step;
}

bytes caching_round_size(bytes size, const caching_allocator_options& options) {
  if (size < min_block_size) return min_block_size;
  const std::uint32_t divisions = divisions_for(size, options);
  // Divisions apply only above 512 B per division; 1200 B with 4 divisions stays on 512 B steps.
  if (divisions > 1 && size > min_block_size * divisions)
    return round_to_power2_division(size, divisions);
  return round_up(size, min_block_size);
}

bytes caching_segment_size(bytes rounded) {
  if (rounded <= small_request_limit) return small_segment_size;
  if (rounded < min_large_alloc) return large_segment_size;
  return round_up(rounded, large_segment_rounding);
}

std::string format_torch_size(bytes n) {
  const auto value = static_cast<double>(n);
  if (n <= KiB) return fmt::format("{} bytes", n);
  if (n <= MiB) return fmt::format("{:.2f} KiB", value / static_cast<double>(KiB));
  if (n <= GiB) return fmt::format("{:.2f} MiB", value / static_cast<double>(MiB));
  return fmt::format("{:.2f} GiB", value / static_cast<double>(GiB));
}

namespace detail {

std::string torch_oom_message(const oom_info& info, bytes device_total, bytes allowed, int device) {
  const bytes device_free = info.capacity > info.reserved ? info.capacity - info.reserved : 0;
  const std::string allowed_info = allowed > 0 ? format_torch_size(allowed) + " allowed; " : "";
  return fmt::format(
      "CUDA out of memory. Tried to allocate {}. GPU {} has a total capacity of {} of which {} is "
      "free. {}Of the allocated memory {} is allocated by PyTorch, and {} is reserved by PyTorch "
      "but unallocated. If reserved but unallocated memory is large try setting "
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.",
      format_torch_size(info.segment_size), device, format_torch_size(device_total),
      format_torch_size(device_free), allowed_info, format_torch_size(info.allocated),
      format_torch_size(info.reserved - info.allocated));
}

}  // namespace detail
}  // namespace vramscope::alloc
