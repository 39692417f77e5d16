#pragma once
// `watch --stats DIR`: the allocator's own figures of each rank, read from the memory_stats
// files a training script keeps writing into DIR (torch.cuda.memory_stats() as JSON, one file
// per rank, e.g. with vramscope.torch's recorder). NVML sees only what each process holds on
// the GPU; these files add what PyTorch allocated inside it, so reserved-but-unallocated memory
// (fragmentation, cache) can be watched and alerted on across a cluster.
//
// The folder is read again at every refresh. A file that does not parse (a writer that is not
// atomic, a half-copied file) is skipped and counted, never fatal: the next refresh reads it
// again.

#include <cstdint>
#include <string>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/observe/observation.hpp>

namespace vramscope::watch {

struct rank_stats {
  observe::torch_stats stats;  // rank from the file's "rank" field or its name
  std::string file;            // the file's name inside the folder
  double age_seconds = 0;      // now minus the file's modification time (0 when in the future)
};

struct stats_folder {
  std::vector<rank_stats> ranks;  // ordered by rank (unknown ranks last), then file name
  std::uint64_t skipped = 0;      // *.json files that could not be read or parsed
  warnings problems;              // why each skipped file was skipped
};

/// Reads every *.json file directly inside `dir`. Fails only when `dir` is not a folder.
result<stats_folder> read_stats_folder(const std::string& dir);

}  // namespace vramscope::watch
