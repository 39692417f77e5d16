#pragma once
// Jobs whose ranks differ in the ways that split them into classes (an early CUDA context or
// tensors on GPU 0, checkpoints and resumes onto cuda:0, out-of-memory failures), on 1 to 8
// GPUs a node: the layouts the rank-range tests of predict and report both plan every way.

#include <gtest/gtest.h>

#include <vramscope/core/units.hpp>
#include <vramscope/job/job_spec.hpp>

namespace vramscope::testing {

struct rank_variant {
  const char* name;
  void (*apply)(job::job_spec&);
};

inline const rank_variant rank_variants[] = {
    {"plain", [](job::job_spec&) {}},
    {"context before set_device", [](job::job_spec& j) { j.init.set_device_first = false; }},
    {"early tensors",
     [](job::job_spec& j) {
       j.init.set_device_first = false;
       j.init.early_tensors = 100_MiB;
     }},
    {"checkpoint onto cuda:0",
     [](job::job_spec& j) {
       j.init.load = job::weight_load::all_ranks;
       j.init.map_location = "none";
     }},
    {"resume onto cuda:0",
     [](job::job_spec& j) {
       j.checkpoint.resume = true;
       j.checkpoint.resume_map_location = "none";
     }},
    {"resume onto cuda:0, eval and a full save",
     [](job::job_spec& j) {
       j.checkpoint.resume = true;
       j.checkpoint.resume_map_location = "none";
       j.eval.enabled = true;
       j.checkpoint.save = job::state_dict_kind::full;
     }},
    {"out of memory", [](job::job_spec& j) { j.hardware.capacity = 700_MiB; }},
    {"strays larger than the GPU",
     [](job::job_spec& j) {
       j.init.set_device_first = false;
       j.init.early_tensors = 2_GiB;
       j.hardware.capacity = 3_GiB;
     }},
};

// A job of `strategy` on `nodes` nodes of `per_node` H100s at 1,024 tokens; Megatron gets two
// pipeline stages where the world is even.
inline job::job_spec rank_layout_job(job::strategy strategy, int per_node, int nodes) {
  job::job_spec j;
  j.parallel.kind = strategy;
  if (strategy == job::strategy::megatron && per_node * nodes % 2 == 0) j.parallel.pp = 2;
  j.hardware.gpu = "H100-80GB";
  j.hardware.gpus_per_node = per_node;
  j.hardware.nodes = nodes;
  j.hardware.capacity = 80_GiB;
  j.hardware.compute_capability = 90;
  j.training.seq_len = 1024;
  return j;
}

// Calls `each(job)` for every strategy (DDP, FSDP2, Megatron), 1, 2, 4 or 8 GPUs a node, 1 or
// 3 nodes and every rank variant, with the layout named in a scoped trace.
template <class Each>
void for_each_rank_layout(Each&& each) {
  for (auto s : {job::strategy::ddp, job::strategy::fsdp2, job::strategy::megatron})
    for (int per_node : {1, 2, 4, 8})
      for (int nodes : {1, 3})
        for (const auto& v : rank_variants) {
          auto j = rank_layout_job(s, per_node, nodes);
          v.apply(j);
          SCOPED_TRACE(::testing::Message() << v.name << ", " << per_node << " x " << nodes
                                            << ", strategy " << static_cast<int>(s));
          each(j);
        }
}

}  // namespace vramscope::testing
