#pragma once
// The PyTorch CUDACachingAllocator model (as of the 2.5/2.6 sources; see docs/allocators.md).

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <vramscope/alloc/allocator_model.hpp>
#include <vramscope/alloc/caching_options.hpp>

namespace vramscope::alloc {

/// Which of torch's two block pools a block lives in.
enum class pool_kind : std::uint8_t { small, large };

/// Model of PyTorch's CUDACachingAllocator for one device: best fit over per-stream pools keyed
/// (stream, size, address); requests <= 1 MiB are packed into 2 MiB segments, 1-10 MiB requests
/// are carved from 20 MiB segments, larger ones get their own segment rounded to 2 MiB. Blocks
/// are split and merged as upstream does, memory freed after record_stream waits for the
/// recorded streams, and a failing segment allocation runs upstream's release-and-retry path
/// before reporting an OOM with torch's message. Optional expandable segments and garbage
/// collection follow upstream too.
/// Pure bookkeeping: touches no device memory. Not thread-safe. Each operation costs O(log n)
/// in the number of cached blocks, except the OOM path, empty_cache and garbage collection,
/// which walk the pools as upstream does.
class caching_allocator final : public allocator_model {
 public:
  explicit caching_allocator(caching_allocator_options options = {});
  ~caching_allocator() override;
  caching_allocator(const caching_allocator&) = delete;
  caching_allocator& operator=(const caching_allocator&) = delete;

  allocation allocate(bytes size, stream_id stream) override;
  void free(handle id) override;
  void record_stream(handle id, stream_id stream) override;
  void complete_stream(stream_id stream) override;
  void empty_cache() override;
  void reset_peaks() override;
  [[nodiscard]] const allocator_stats& stats() const override;
  [[nodiscard]] std::string name() const override;  // "torch-caching"
  [[nodiscard]] std::vector<block_info> blocks() const override;
  [[nodiscard]] bytes capacity() const override;
  [[nodiscard]] std::optional<std::string> oom_message(const oom_info& info) const override;
  [[nodiscard]] std::unique_ptr<allocator_model> clone() const override;
  bool copy_state_from(const allocator_model& other) override;
  [[nodiscard]] bool state_key(std::span<const handle> live,
                               std::vector<std::uint64_t>& key) const override;

  /// The "small_pool" / "large_pool" halves of memory_stats(); stats() is their sum.
  [[nodiscard]] const allocator_stats& pool_stats(pool_kind pool) const;
  [[nodiscard]] const caching_allocator_options& options() const;

 private:
  struct state;  // the block pools; defined in src/alloc/caching_state.hpp
  std::unique_ptr<state> state_;
};
static_assert(!std::is_abstract_v<caching_allocator>);

}  // namespace vramscope::alloc
