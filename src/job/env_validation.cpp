// Checks of the environment variables that change memory behaviour (docs/job-spec.md, `env`).
// Upstream facts: the XLA_* variables and their accepted values, jaxlib's xla_client.py
// (generate_pjrt_gpu_plugin_options); TORCH_NCCL_AVOID_RECORD_STREAMS, ignored from PyTorch 2.8,
// torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp; the PYTORCH_CUDA_ALLOC_CONF options,
// c10/core/AllocatorConfig.cpp (docs/allocators.md, "PYTORCH_CUDA_ALLOC_CONF").
#include "job/validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "job/field_codecs.hpp"

namespace vramscope::job::detail {

namespace {

const std::vector<std::string> known_variables{
    "PYTORCH_CUDA_ALLOC_CONF",      "PYTORCH_ALLOC_CONF",
    "TORCH_NCCL_AVOID_RECORD_STREAMS", "CUDA_VISIBLE_DEVICES",
    "CUDA_MODULE_LOADING",          "CUBLAS_WORKSPACE_CONFIG",
    "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_CLIENT_MEM_FRACTION",
    "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_ALLOCATOR",
    "XLA_PYTHON_CLIENT_COLLECTIVE_MEM_SIZE_MB", "NCCL_NVLS_ENABLE",
    "NCCL_BUFFSIZE",                "NCCL_LL_BUFFSIZE",
    "NCCL_LL128_BUFFSIZE",          "NCCL_MIN_NCHANNELS",
    "NCCL_MAX_NCHANNELS",           "NCCL_RUNTIME_CONNECT",
};

const std::vector<std::string> alloc_conf_options{
    "backend", "max_split_size_mb", "roundup_power2_divisions", "garbage_collection_threshold",
    "expandable_segments", "release_lock_on_cudamalloc", "pinned_use_cuda_host_register",
    "pinned_num_register_threads", "pinned_use_background_threads", "max_non_split_rounding_mb",
};

// "key:value,key:[a:b,c:d]": commas inside brackets do not separate options.
std::vector<std::string> split_options(const std::string& conf) {
  std::vector<std::string> out;
  std::string item;
  int depth = 0;
  for (char c : conf + ",") {
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (c == ',' && depth <= 0) {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  return out;
}

void check_alloc_conf(const job_spec& job, const std::string& name, warnings& notes) {
  for (const auto& option : split_options(job.env.at(name))) {
    const std::string key = option.substr(0, option.find(':'));
    if (std::find(alloc_conf_options.begin(), alloc_conf_options.end(), key) !=
        alloc_conf_options.end())
      continue;
    const std::string near = did_you_mean(key, alloc_conf_options);
    notes.push_back(field_error(
        job, "env." + name,
        fmt::format("unknown option \"{}\"{}", key,
                    near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near))));
  }
}

bool is_fraction(const std::string& text) {
  // A number, or the newer "low-high" form ("0.75-0.85").
  for (const auto& part : {text.substr(0, text.find('-')),
                           text.find('-') == std::string::npos ? "1" : text.substr(text.find('-') + 1)}) {
    char* end = nullptr;
    const double v = part.empty() ? -1 : std::strtod(part.c_str(), &end);
    if (part.empty() || end != part.c_str() + part.size() || !(v > 0) || v > 4) return false;
  }
  return true;
}

maybe_error check_xla(const job_spec& job) {
  const auto& env = job.env;
  for (const char* name : {"XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_CLIENT_MEM_FRACTION"})
    if (env.count(name) != 0 && !is_fraction(env.at(name)))
      return field_error(job, std::string("env.") + name,
                         fmt::format("expected a fraction such as 0.75, got \"{}\"", env.at(name)));
  if (env.count("XLA_PYTHON_CLIENT_MEM_FRACTION") != 0 && env.count("XLA_CLIENT_MEM_FRACTION") != 0)
    return field_error(job, "env.XLA_CLIENT_MEM_FRACTION",
                       "jax refuses it together with XLA_PYTHON_CLIENT_MEM_FRACTION (the old "
                       "name); keep one");
  if (auto it = env.find("XLA_PYTHON_CLIENT_ALLOCATOR"); it != env.end()) {
    const std::vector<std::string> kinds{"default", "platform", "bfc", "cuda_async", "vmm"};
    if (std::find(kinds.begin(), kinds.end(), lower_case(it->second)) == kinds.end())
      return field_error(job, "env.XLA_PYTHON_CLIENT_ALLOCATOR",
                         fmt::format("invalid value \"{}\" (expected one of: {})", it->second,
                                     join(kinds)));
  }
  return std::nullopt;
}

void check_names(const job_spec& job, warnings& notes) {
  const bool jax = job.framework.name == "jax";
  for (const auto& [name, value] : job.env) {
    const bool known =
        std::find(known_variables.begin(), known_variables.end(), name) != known_variables.end();
    if (!known) {
      if (std::string near = did_you_mean(name, known_variables); !near.empty())
        notes.push_back(field_error(job, "env." + name,
                                    fmt::format("not a variable vramscope reads (did you mean "
                                                "\"{}\"?)", near)));
      continue;
    }
    const bool xla = name.rfind("XLA_", 0) == 0;
    const bool torch = name.rfind("PYTORCH_", 0) == 0 || name.rfind("TORCH_", 0) == 0;
    if ((xla && !jax) || (torch && jax))
      notes.push_back(field_error(job, "env." + name,
                                  fmt::format("has no effect on a {} job", job.framework.name)));
  }
}

}  // namespace

maybe_error check_env(const job_spec& job, warnings& notes) {
  if (auto err = check_xla(job)) return err;
  if (auto it = job.env.find("TORCH_NCCL_AVOID_RECORD_STREAMS"); it != job.env.end()) {
    bool on = false;
    if (!parse_bool_text(it->second, on).empty())
      return field_error(job, "env.TORCH_NCCL_AVOID_RECORD_STREAMS",
                         fmt::format("expected 0 or 1, got \"{}\"", it->second));
    if (job.framework.name == "torch" && version_key(job.framework.version) >= 208)
      notes.push_back(field_error(job, "env.TORCH_NCCL_AVOID_RECORD_STREAMS",
                                  fmt::format("ignored by torch {} (from 2.8 collectives never "
                                              "record streams)", job.framework.version)));
  }
  for (const char* name : {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"})
    if (job.env.count(name) != 0) check_alloc_conf(job, name, notes);
  check_names(job, notes);
  return std::nullopt;
}

}  // namespace vramscope::job::detail
