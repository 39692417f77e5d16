#pragma once
// Adaptors in the style of rmm's resource adaptors: each is itself an allocator_model that owns
// another one and adds one concern — peaks per named scope (statistics_adaptor), a log of every
// event (tracking_adaptor), a cap on allocated bytes (limiting_adaptor). They compose:
//   statistics_adaptor(std::make_unique<tracking_adaptor>(make_caching_allocator(options)))

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <vramscope/alloc/allocator_model.hpp>
#include <vramscope/alloc/event_log.hpp>
#include <vramscope/core/result.hpp>

namespace vramscope::alloc {

/// Forwards every call to the wrapped model; adaptors override what they add to.
/// Requires: `inner` is not null. Owns it for its whole lifetime.
class forwarding_adaptor : public allocator_model {
 public:
  explicit forwarding_adaptor(std::unique_ptr<allocator_model> inner);

  allocation allocate(bytes size, stream_id stream) override;
  void free(handle id) override;
  void record_stream(handle id, stream_id stream) override;
  void complete_stream(stream_id stream) override;
  void empty_cache() override;
  void reset_peaks() override;
  [[nodiscard]] const allocator_stats& stats() const override;
  [[nodiscard]] std::string name() const override;
  [[nodiscard]] std::vector<block_info> blocks() const override;
  [[nodiscard]] bytes capacity() const override;

  [[nodiscard]] allocator_model& inner() { return *inner_; }
  [[nodiscard]] const allocator_model& inner() const { return *inner_; }

 protected:
  std::unique_ptr<allocator_model> inner_;
};

/// The peaks seen inside one scope (a phase such as "forward" or "backward:layers.3"): the
/// highest allocated / active / reserved after any event between push and pop, nested scopes
/// included, plus the values at entry so a report can show how much the scope added.
struct scope_peaks {
  std::string name;
  std::uint32_t depth = 0;  // 0 = outermost
  bytes allocated_peak = 0;
  bytes active_peak = 0;
  bytes reserved_peak = 0;
  bytes allocated_at_entry = 0;
  bytes reserved_at_entry = 0;
  std::uint64_t allocations = 0;  // successful allocate() calls inside, nested ones included
  std::uint64_t ooms = 0;         // failed allocate() calls inside
};

/// Records peaks per named scope. Cost per event: one comparison per figure (only the innermost
/// scope is updated; a closing scope passes its peaks to its parent).
class statistics_adaptor final : public forwarding_adaptor {
 public:
  explicit statistics_adaptor(std::unique_ptr<allocator_model> inner);

  allocation allocate(bytes size, stream_id stream) override;
  void free(handle id) override;
  void complete_stream(stream_id stream) override;
  void empty_cache() override;
  [[nodiscard]] std::string name() const override;  // "statistics(<inner>)"

  /// Opens a scope inside the current one.
  void push_scope(std::string name);
  /// Closes the innermost scope and returns its peaks. Requires: a scope is open.
  scope_peaks pop_scope();
  [[nodiscard]] std::size_t depth() const { return open_.size(); }
  /// Every closed scope, in the order it closed.
  [[nodiscard]] const std::vector<scope_peaks>& closed_scopes() const { return closed_; }
  /// The highest peaks per scope name over all its occurrences (counts are summed).
  [[nodiscard]] std::map<std::string, scope_peaks> peaks_by_name() const;

 private:
  void observe();
  std::vector<scope_peaks> open_;
  std::vector<scope_peaks> closed_;
};

/// Records every call as a logged_event (event_log.hpp) before forwarding it; the log can be
/// written as CSV and replayed through any model with replay().
class tracking_adaptor final : public forwarding_adaptor {
 public:
  explicit tracking_adaptor(std::unique_ptr<allocator_model> inner);

  allocation allocate(bytes size, stream_id stream) override;
  void free(handle id) override;
  void record_stream(handle id, stream_id stream) override;
  void complete_stream(stream_id stream) override;
  void empty_cache() override;
  void reset_peaks() override;
  [[nodiscard]] std::string name() const override;  // "tracking(<inner>)"

  [[nodiscard]] const std::vector<logged_event>& events() const { return events_; }
  void clear() { events_.clear(); }
  /// The log as CSV (see event_log.hpp), written whole or not at all.
  [[nodiscard]] status write_csv(const std::string& path) const;

 private:
  std::vector<logged_event> events_;
};

/// Refuses allocations that would take the wrapped model's allocated bytes above `limit`
/// (rmm's limiting_resource_adaptor). The request is checked before forwarding; if the block
/// the model hands out turns out larger than the room left, it is freed again and refused.
/// Refusals are OOMs: allocation::failed, counted in stats().ooms.
class limiting_adaptor final : public forwarding_adaptor {
 public:
  limiting_adaptor(std::unique_ptr<allocator_model> inner, bytes limit);

  allocation allocate(bytes size, stream_id stream) override;
  [[nodiscard]] const allocator_stats& stats() const override;
  [[nodiscard]] std::string name() const override;  // "limiting(<inner>)"
  [[nodiscard]] bytes limit() const { return limit_; }

 private:
  allocation refuse(bytes size, bytes would_be);
  bytes limit_;
  std::uint64_t refusals_ = 0;
  mutable allocator_stats view_;
};

static_assert(!std::is_abstract_v<statistics_adaptor>);
static_assert(!std::is_abstract_v<tracking_adaptor>);
static_assert(!std::is_abstract_v<limiting_adaptor>);

}  // namespace vramscope::alloc
