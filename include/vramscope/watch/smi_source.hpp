#pragma once
// smi_source: the fallback when NVML cannot be loaded but nvidia-smi runs. Each read runs
//
//   nvidia-smi --query-gpu=index,uuid,name,pci.bus_id,memory.total,memory.used,memory.free,
//              memory.reserved,utilization.gpu,utilization.memory --format=csv,noheader,nounits
//   nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory,process_name
//              --format=csv,noheader,nounits
//
// and parses both with the observe module's CSV reader. Drivers that do not know
// memory.reserved get the query without it. nvidia-smi lists compute processes only and
// prints sizes in MiB, so figures are exact to 1 MiB. Each read costs two process starts
// (tens of milliseconds): prefer NVML for fast sampling.
//
// A read that fails after the first one ("No devices were found" while the driver resets, a
// query past its 10 s timeout) does not end watch: the GPUs last seen are reported lost, with
// their labels, and nvidia-smi is asked again after a back-off that doubles from 1 s to 60 s.

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/watch/gpu_source.hpp>

namespace vramscope::watch {

class smi_source final : public gpu_source {
 public:
  /// `program` "" means $VRAMSCOPE_NVIDIA_SMI, else "nvidia-smi" from PATH. Runs one query to
  /// check that it works and sees a GPU; fails with the program as the diagnostic's source and
  /// its first line of output (or "not found") as the message.
  static result<std::unique_ptr<smi_source>> open(const std::string& program = {});

  [[nodiscard]] std::string_view name() const override { return "nvidia-smi"; }
  result<sample> read() override;

 private:
  explicit smi_source(std::string program) : program_(std::move(program)) {}
  result<std::string> query(const std::string& what, const std::string& fields);
  result<sample> read_now();
  sample lost_sample(const std::string& why) const;

  std::string program_;
  bool with_reserved_ = true;
  std::vector<observe::gpu_observation> last_gpus_;  // of the last read that worked
  int failures_ = 0;                                 // reads failed in a row
  std::chrono::steady_clock::time_point retry_at_{};
};

/// How long smi_source waits before asking nvidia-smi again after `failures` failed reads in a
/// row (1 or more): 1 s, doubled each time, at most 60 s.
std::chrono::seconds smi_retry_delay(int failures);

/// The GPU query fields smi_source asks for, in order, with or without memory.reserved.
std::string smi_gpu_fields(bool with_reserved);

/// The process query fields smi_source asks for, in order.
std::string smi_process_fields();

/// Builds a sample from the two CSV texts (noheader, nounits) in the field orders above. Each
/// process gets its GPU's index through its UUID. Fails like parse_nvidia_smi_csv.
result<sample> sample_from_smi(std::string_view gpus_csv, std::string_view processes_csv,
                               bool with_reserved);

}  // namespace vramscope::watch
