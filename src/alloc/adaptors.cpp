// forwarding_adaptor, tracking_adaptor and limiting_adaptor.

#include <vramscope/alloc/adaptors.hpp>

#include <fmt/format.h>

#include <vramscope/core/io.hpp>

namespace vramscope::alloc {

// --- forwarding_adaptor ---

forwarding_adaptor::forwarding_adaptor(std::unique_ptr<allocator_model> inner)
    : inner_(std::move(inner)) {
  VRAMSCOPE_EXPECTS(inner_ != nullptr, "an adaptor needs a model to wrap");
}

allocation forwarding_adaptor::allocate(bytes size, stream_id stream) {
  return inner_->allocate(size, stream);
}
void forwarding_adaptor::free(handle id) { inner_->free(id); }
void forwarding_adaptor::record_stream(handle id, stream_id stream) {
  inner_->record_stream(id, stream);
}
void forwarding_adaptor::complete_stream(stream_id stream) { inner_->complete_stream(stream); }
void forwarding_adaptor::empty_cache() { inner_->empty_cache(); }
void forwarding_adaptor::reset_peaks() { inner_->reset_peaks(); }
const allocator_stats& forwarding_adaptor::stats() const { return inner_->stats(); }
std::string forwarding_adaptor::name() const { return inner_->name(); }
std::vector<block_info> forwarding_adaptor::blocks() const { return inner_->blocks(); }
bytes forwarding_adaptor::capacity() const { return inner_->capacity(); }

// --- tracking_adaptor ---

tracking_adaptor::tracking_adaptor(std::unique_ptr<allocator_model> inner)
    : forwarding_adaptor(std::move(inner)) {}

allocation tracking_adaptor::allocate(bytes size, stream_id stream) {
  allocation a = inner_->allocate(size, stream);
  events_.push_back({event_op::alloc, size, stream, a.ok ? a.id : 0});
  return a;
}

void tracking_adaptor::free(handle id) {
  events_.push_back({event_op::free, 0, 0, id});
  inner_->free(id);
}

void tracking_adaptor::record_stream(handle id, stream_id stream) {
  events_.push_back({event_op::record_stream, 0, stream, id});
  inner_->record_stream(id, stream);
}

void tracking_adaptor::complete_stream(stream_id stream) {
  events_.push_back({event_op::complete_stream, 0, stream, 0});
  inner_->complete_stream(stream);
}

void tracking_adaptor::empty_cache() {
  events_.push_back({event_op::empty_cache, 0, 0, 0});
  inner_->empty_cache();
}

void tracking_adaptor::reset_peaks() {
  events_.push_back({event_op::reset_peaks, 0, 0, 0});
  inner_->reset_peaks();
}

std::string tracking_adaptor::name() const { return "tracking(" + inner_->name() + ")"; }

status tracking_adaptor::write_csv(const std::string& path) const {
  return write_file_atomic(path, to_event_csv(events_));
}

// --- limiting_adaptor ---

limiting_adaptor::limiting_adaptor(std::unique_ptr<allocator_model> inner, bytes limit)
    : forwarding_adaptor(std::move(inner)), limit_(limit) {}

allocation limiting_adaptor::allocate(bytes size, stream_id stream) {
  const bytes in_use = inner_->stats().allocated.current;
  // Every model rounds up, so the request is a lower bound of the block it would take.
  if (in_use + size > limit_) return refuse(size, in_use + size);
  allocation a = inner_->allocate(size, stream);
  if (a.ok && in_use + a.block_size > limit_) {
    inner_->free(a.id);
    return refuse(size, in_use + a.block_size);
  }
  return a;
}

allocation limiting_adaptor::refuse(bytes size, bytes would_be) {
  ++refusals_;
  oom_info info;
  info.requested = size;
  info.segment_size = would_be - inner_->stats().allocated.current;
  info.allocated = inner_->stats().allocated.current;
  info.reserved = inner_->stats().reserved.current;
  info.capacity = limit_;
  info.message = fmt::format("allocation of {} refused: {} allocated would exceed the limit of {}",
                             format_bytes(size), format_bytes(would_be), format_bytes(limit_));
  return allocation::failed(std::move(info));
}

const allocator_stats& limiting_adaptor::stats() const {
  view_ = inner_->stats();
  view_.ooms += refusals_;
  return view_;
}

std::string limiting_adaptor::name() const { return "limiting(" + inner_->name() + ")"; }

}  // namespace vramscope::alloc
