#include "schedule/offload.hpp"

#include <vramscope/schedule/schedule.hpp>

namespace vramscope::schedule {

activation_offloader::activation_offloader(const job::job_spec& job, program_builder& out)
    : out_(out),
      enabled_(job.training.activation_offloading),
      streams_(version_number(job.framework.version) >= version_number("2.5")) {}

tensor_id activation_offloader::pack(bytes size, std::size_t unit, bool record) {
  const std::uint64_t id = ++packed_;
  const tensor_id t = out_.alloc(size, category::activations);
  if (size < min_offload_size) return t;
  if (host_.size() <= unit) host_.resize(unit + 1);
  host_[unit].push_back(size);
  if (record) out_.offloaded(size);
  if (!streams_) {
    tensor_id gone = t;
    out_.free(gone);
    return 0;
  }
  // pack_tensor first lets go of the tensors saved max_fwd_stash_size or more packs ago.
  while (!stash_.empty() && stash_.front().id + max_fwd_stash_size <= id) {
    out_.free(stash_.front().tensor);
    stash_.pop_front();
  }
  stash_.push_back({id, t, unit});
  return 0;
}

std::vector<tensor_id> activation_offloader::unpack(std::size_t unit) {
  std::vector<tensor_id> back;
  if (unit >= host_.size() || host_[unit].empty()) return back;
  // The first node that unpacks an offloaded tensor empties the forward stash; tensors of this
  // unit still in it are used as they are, the others are dropped.
  std::size_t in_stash = 0;
  for (auto& s : stash_) {
    if (s.unit == unit) {
      back.push_back(s.tensor);
      ++in_stash;
    } else {
      out_.free(s.tensor);
    }
  }
  stash_.clear();
  // The rest come back from host memory; with streams, allocated on the copy stream
  // (unpack_tensor_with_streams: `with torch.cuda.stream(self.s1): ... .to("cuda")`).
  const auto& sizes = host_[unit];
  const std::uint32_t stream = streams_ ? streams::offload : streams::compute;
  for (std::size_t i = 0; i + in_stash < sizes.size(); ++i)
    back.push_back(out_.alloc(sizes[i], category::activations, stream));
  host_[unit].clear();
  return back;
}

}  // namespace vramscope::schedule
