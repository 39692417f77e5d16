// statistics_adaptor: peaks per named scope.

#include <vramscope/alloc/adaptors.hpp>

#include <algorithm>

namespace vramscope::alloc {

statistics_adaptor::statistics_adaptor(std::unique_ptr<allocator_model> inner)
    : forwarding_adaptor(std::move(inner)) {}

allocation statistics_adaptor::allocate(bytes size, stream_id stream) {
  allocation a = inner_->allocate(size, stream);
  if (!open_.empty()) ++(a.ok ? open_.back().allocations : open_.back().ooms);
  observe();
  return a;
}

void statistics_adaptor::free(handle id) {
  inner_->free(id);
  observe();
}

void statistics_adaptor::complete_stream(stream_id stream) {
  inner_->complete_stream(stream);
  observe();
}

void statistics_adaptor::empty_cache() {
  inner_->empty_cache();
  observe();
}

std::string statistics_adaptor::name() const { return "statistics(" + inner_->name() + ")"; }

void statistics_adaptor::observe() {
  if (open_.empty()) return;
  const allocator_stats& s = inner_->stats();
  scope_peaks& top = open_.back();
  top.allocated_peak = std::max(top.allocated_peak, s.allocated.current);
  top.active_peak = std::max(top.active_peak, s.active.current);
  top.reserved_peak = std::max(top.reserved_peak, s.reserved.current);
}

void statistics_adaptor::push_scope(std::string name) {
  const allocator_stats& s = inner_->stats();
  scope_peaks scope;
  scope.name = std::move(name);
  scope.depth = static_cast<std::uint32_t>(open_.size());
  scope.allocated_peak = scope.allocated_at_entry = s.allocated.current;
  scope.active_peak = s.active.current;
  scope.reserved_peak = scope.reserved_at_entry = s.reserved.current;
  open_.push_back(std::move(scope));
}

scope_peaks statistics_adaptor::pop_scope() {
  VRAMSCOPE_EXPECTS(!open_.empty(), "pop_scope without an open scope");
  scope_peaks done = std::move(open_.back());
  open_.pop_back();
  if (!open_.empty()) {
    scope_peaks& parent = open_.back();
    parent.allocated_peak = std::max(parent.allocated_peak, done.allocated_peak);
    parent.active_peak = std::max(parent.active_peak, done.active_peak);
    parent.reserved_peak = std::max(parent.reserved_peak, done.reserved_peak);
    parent.allocations += done.allocations;
    parent.ooms += done.ooms;
  }
  closed_.push_back(done);
  return done;
}

std::map<std::string, scope_peaks> statistics_adaptor::peaks_by_name() const {
  std::map<std::string, scope_peaks> out;
  for (const scope_peaks& s : closed_) {
    auto [it, inserted] = out.try_emplace(s.name, s);
    if (inserted) continue;
    scope_peaks& m = it->second;
    m.allocated_peak = std::max(m.allocated_peak, s.allocated_peak);
    m.active_peak = std::max(m.active_peak, s.active_peak);
    m.reserved_peak = std::max(m.reserved_peak, s.reserved_peak);
    m.allocations += s.allocations;
    m.ooms += s.ooms;
  }
  return out;
}

}  // namespace vramscope::alloc
