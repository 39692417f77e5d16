#include "schedule/builder.hpp"

namespace vramscope::schedule {

std::string_view name_of(category c) {
  switch (c) {
    case category::parameters: return "parameters";
    case category::gradients: return "gradients";
    case category::optimizer: return "optimizer";
    case category::activations: return "activations";
    case category::communication: return "communication";
    case category::temporary: return "temporary";
  }
  return "temporary";
}

namespace {
// The size of the last program this thread built: the next one (a rank of the same job, or a
// what-if row beside the last) is usually alike, so its events are reserved at once instead of
// grown by doubling, which copied every event about twice.
thread_local std::size_t last_program_events = 0;
}  // namespace

program_builder::program_builder(program_watcher* watcher) : watcher_(watcher) {
  program_.phase_names.push_back("init");
  program_.tensors = 1;  // id 0 is the null tensor
  program_.events.reserve(last_program_events + last_program_events / 8);
}

program program_builder::take() {
  if (cut_) {  // a short program says nothing of the next row's size
    program_.events.resize(cut_->events);
    program_.phase_names.resize(cut_->phases);
    program_.tensors = cut_->tensors;
    program_.managed = cut_->managed;
    program_.offloaded = cut_->offloaded;
    std::erase_if(program_.steps, [&](const program::step_mark& m) { return m.end > cut_->events; });
    program_.complete = false;
  } else {
    last_program_events = program_.events.size();
  }
  return std::move(program_);
}

void program_builder::record_stream(tensor_id id, std::uint32_t stream) {
  if (id != 0) push(event_kind::record_stream, category::temporary, stream, id, 0);
}

void program_builder::sync(std::uint32_t stream) {
  push(event_kind::sync, category::temporary, stream, 0, 0);
}

void program_builder::sync_all() {
  for (std::uint32_t s = 0; s <= streams::nccl; ++s) sync(s);
}

void program_builder::phase(std::string name) {
  if (program_.phase_names[phase_] == name) return;
  if (watcher_ != nullptr && !cut_ && !watcher_->grown(program_))
    cut_ = cut{program_.events.size(), program_.phase_names.size(), program_.tensors,
               program_.managed, program_.offloaded};
  program_.phase_names.push_back(std::move(name));
  phase_ = static_cast<std::uint32_t>(program_.phase_names.size() - 1);
  push(event_kind::phase, category::temporary, 0, phase_, 0);
}

void program_builder::empty_cache() { push(event_kind::empty_cache, category::temporary, 0, 0, 0); }

void program_builder::managed(bytes size) { program_.managed += size; }

void program_builder::offloaded(bytes size) { program_.offloaded += size; }

const std::string& program_builder::current_phase() const { return program_.phase_names[phase_]; }

}  // namespace vramscope::schedule
