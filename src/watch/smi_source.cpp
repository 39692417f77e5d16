#include <vramscope/watch/smi_source.hpp>

#include <vramscope/observe/nvidia_smi.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

#include "watch/clock.hpp"
#include "watch/run_command.hpp"

namespace vramscope::watch {

namespace {

constexpr std::chrono::milliseconds smi_timeout{10000};

std::vector<std::string> split_fields(const std::string& fields) {
  std::vector<std::string> out;
  std::stringstream in(fields);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  return out;
}

std::string program_name(const std::string& requested) {
  if (!requested.empty()) return requested;
  if (const char* env = std::getenv("VRAMSCOPE_NVIDIA_SMI"); env && *env) return env;
  return "nvidia-smi";
}

// nvidia-smi prints its problem on stdout ("No devices were found") or stderr.
std::string first_line(const command_output& r) {
  const std::string& text = r.err.find_first_not_of(" \n") != std::string::npos ? r.err : r.out;
  const auto begin = text.find_first_not_of(" \n");
  if (begin == std::string::npos) return fmt::format("exit code {}", r.exit_code);
  return text.substr(begin, text.find('\n', begin) - begin);
}

}  // namespace

std::string smi_gpu_fields(bool with_reserved) {
  return with_reserved ? "index,uuid,name,pci.bus_id,memory.total,memory.used,memory.free,"
                         "memory.reserved,utilization.gpu,utilization.memory"
                       : "index,uuid,name,pci.bus_id,memory.total,memory.used,memory.free,"
                         "utilization.gpu,utilization.memory";
}

std::string smi_process_fields() { return "gpu_uuid,pid,used_memory,process_name"; }

result<sample> sample_from_smi(std::string_view gpus_csv, std::string_view processes_csv,
                               bool with_reserved) {
  sample s;
  s.time_ms = now_ms();
  auto gpus = observe::parse_nvidia_smi_csv(gpus_csv, "nvidia-smi --query-gpu",
                                            {split_fields(smi_gpu_fields(with_reserved))});
  if (!gpus) return gpus.error();
  std::map<std::string, int> index_of;
  for (auto& g : gpus->gpus) {
    if (!g.index) g.index = static_cast<int>(s.gpus.size());
    index_of[g.uuid] = *g.index;
    s.gpus.push_back(gpu_reading{std::move(g), false, std::nullopt});
  }
  if (processes_csv.find_first_not_of(" \r\n") == std::string_view::npos) return s;
  auto apps = observe::parse_nvidia_smi_csv(processes_csv, "nvidia-smi --query-compute-apps",
                                            {split_fields(smi_process_fields())});
  if (!apps) return apps.error();
  for (auto& p : apps->processes) {
    if (auto it = index_of.find(p.gpu_uuid); it != index_of.end())
      p.gpu_index = it->second;
    else
      s.warnings.push_back(error_at("nvidia-smi", fmt::format("process {} is on GPU {}, which "
                                                              "the GPU query did not list",
                                                              p.pid, p.gpu_uuid)));
    p.type = "C";
    s.processes.push_back(process_reading{std::move(p), {}, std::nullopt});
  }
  return s;
}

result<std::string> smi_source::query(const std::string& what, const std::string& fields) {
  auto r = run_command(
      {program_, "--query-" + what + "=" + fields, "--format=csv,noheader,nounits"}, smi_timeout);
  if (!r) return r.error();
  if (r->timed_out)
    return error_at(program_,
                    fmt::format("did not answer within {} s", smi_timeout.count() / 1000));
  if (r->exit_code != 0) return error_at(program_, first_line(*r));
  return std::move(r->out);
}

std::chrono::seconds smi_retry_delay(int failures) {
  if (failures <= 1) return std::chrono::seconds(1);
  return std::chrono::seconds(failures >= 7 ? 60 : std::min(60, 1 << (failures - 1)));
}

sample smi_source::lost_sample(const std::string& why) const {
  sample s;
  s.time_ms = now_ms();
  for (const auto& last : last_gpus_) {
    gpu_reading g;  // who it is, none of its figures
    g.gpu.index = last.index;
    g.gpu.name = last.name;
    g.gpu.uuid = last.uuid;
    g.gpu.bus_id = last.bus_id;
    g.lost = true;
    s.gpus.push_back(std::move(g));
  }
  if (!why.empty()) s.warnings.push_back(error_at(program_, why));
  return s;
}

result<sample> smi_source::read() {
  const auto now = std::chrono::steady_clock::now();
  if (failures_ > 0 && now < retry_at_) return lost_sample("");  // warned when it failed
  auto fresh = read_now();
  if (fresh || last_gpus_.empty()) {  // the first read's failure is open()'s to report
    if (fresh) {
      failures_ = 0;
      last_gpus_.clear();
      for (const auto& g : fresh->gpus) last_gpus_.push_back(g.gpu);
    }
    return fresh;
  }
  ++failures_;
  const auto delay = smi_retry_delay(failures_);
  retry_at_ = now + delay;
  return lost_sample(fmt::format("{}; its GPUs are marked lost, asking again in {} s",
                                 fresh.error().message, delay.count()));
}

result<sample> smi_source::read_now() {
  auto gpus = query("gpu", smi_gpu_fields(with_reserved_));
  if (!gpus && with_reserved_ &&
      gpus.error().message.find("memory.reserved") != std::string::npos) {
    with_reserved_ = false;  // drivers before memory.reserved was a query field
    gpus = query("gpu", smi_gpu_fields(false));
  }
  if (!gpus) return gpus.error();
  auto apps = query("compute-apps", smi_process_fields());
  if (!apps) return apps.error();
  return sample_from_smi(*gpus, *apps, with_reserved_);
}

result<std::unique_ptr<smi_source>> smi_source::open(const std::string& program) {
  std::unique_ptr<smi_source> source(new smi_source(program_name(program)));
  auto first = source->read();
  if (!first) return first.error();
  if (first->gpus.empty()) return error_at(source->program_, "lists no GPU");
  return source;
}

}  // namespace vramscope::watch
