#pragma once
// Test support: memory snapshots described in C++ and written with pickle_writer, shaped as
// torch.cuda.memory._dump_snapshot writes them (the dict of torch/csrc/cuda/Module.cpp,
// THCPModule_memorySnapshot; docs/formats/snapshot.md): shared key strings, one shared empty
// frames list, frame dicts shared between a block and its alloc entry.

#include <cstdint>
#include <string>
#include <vector>

#include "observe/pickle_writer.hpp"

namespace vramscope::observe::testing {

inline py frame(const char* name, const char* file, int line) {
  return dict({{"name", name}, {"filename", file}, {"line", line}});
}

struct snapshot_maker {
  std::shared_ptr<py_list> no_frames = list();  // torch shares one empty list
  std::shared_ptr<py_list> segments = list();
  std::vector<std::shared_ptr<py_list>> traces;
  std::uint64_t time_us = 1'717'000'000'000'000;

  std::shared_ptr<py_list> stack(std::vector<py> frames) { return list(std::move(frames)); }

  py block(std::uint64_t size, std::uint64_t requested, const char* state, py frames = py()) {
    return dict({{"size", size}, {"requested_size", requested}, {"state", state},
                 {"frames", frames.v.index() == 0 ? py(no_frames) : frames}});
  }

  void segment(int device, std::uint64_t address, std::uint64_t total, std::vector<py> blocks,
               bool expandable = false) {
    std::uint64_t allocated = 0;
    auto block_list = list();
    for (auto& b : blocks) block_list->push_back(b);
    segments->push_back(dict({{"device", device}, {"address", address}, {"total_size", total},
                              {"allocated_size", allocated}, {"active_size", allocated},
                              {"requested_size", allocated}, {"stream", 0}, {"segment_type", "large"},
                              {"segment_pool_id", tuple({0, 0})}, {"is_expandable", expandable},
                              {"frames", no_frames}, {"blocks", block_list}}));
  }

  void event(int device, const char* action, std::uint64_t addr, std::uint64_t size, py frames = py()) {
    while (traces.size() <= static_cast<std::size_t>(device)) traces.push_back(list());
    time_us += 10;
    auto e = dict({{"action", action}, {"addr", addr}, {"size", size}, {"stream", 0},
                   {"time_us", time_us}});
    if (frames.v.index() != 0) e->push_back({"frames", frames});
    traces[static_cast<std::size_t>(device)]->push_back(e);
  }

  void oom(int device, std::uint64_t size, std::uint64_t device_free) {
    while (traces.size() <= static_cast<std::size_t>(device)) traces.push_back(list());
    time_us += 10;
    traces[static_cast<std::size_t>(device)]->push_back(
        dict({{"action", "oom"}, {"device_free", device_free}, {"size", size}, {"stream", 0},
              {"time_us", time_us}}));
  }

  std::string bytes(int protocol = 4, const char* alloc_conf = "expandable_segments:False") const {
    auto device_traces = list();
    for (const auto& t : traces) device_traces->push_back(t);
    auto settings = dict({{"PYTORCH_CUDA_ALLOC_CONF", alloc_conf},
                          {"max_split_size", static_cast<std::uint64_t>(UINT64_MAX)},
                          {"garbage_collection_threshold", 0.0}, {"expandable_segments", false}});
    auto root = dict({{"segments", segments}, {"device_traces", device_traces},
                      {"allocator_settings", settings}, {"external_annotations", list()}});
    return pickle_writer(protocol).dump(root);
  }
};

}  // namespace vramscope::observe::testing
