#include "corpus_facts.hpp"

#include <vramscope/job/job_writer.hpp>
#include <vramscope/model/catalog.hpp>

#include <cstdint>
#include <optional>

namespace vramscope::testing {
namespace {

using nlohmann::json;

template <typename T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

void add_gpu(json& f, std::size_t i, const observe::gpu_observation& g) {
  const std::string p = "gpu." + std::to_string(i) + ".";
  f[p + "index"] = or_null(g.index);
  f[p + "name"] = g.name;
  f[p + "uuid"] = g.uuid;
  f[p + "bus_id"] = g.bus_id;
  f[p + "total"] = or_null(g.total);
  f[p + "used"] = or_null(g.used);
  f[p + "free"] = or_null(g.free);
  f[p + "reserved"] = or_null(g.reserved);
}

void add_process(json& f, std::size_t i, const observe::process_observation& pr) {
  const std::string p = "process." + std::to_string(i) + ".";
  f[p + "gpu_index"] = or_null(pr.gpu_index);
  f[p + "gpu_uuid"] = pr.gpu_uuid;
  f[p + "gpu_bus_id"] = pr.gpu_bus_id;
  f[p + "pid"] = pr.pid;
  f[p + "name"] = pr.name;
  f[p + "type"] = pr.type;
  f[p + "used"] = or_null(pr.used);
  f[p + "gpu_instance"] = or_null(pr.gpu_instance);
}

void add_stats(json& f, std::size_t i, const observe::torch_stats& s) {
  const std::string p = "stats." + std::to_string(i) + ".";
  f[p + "origin"] = s.origin == observe::stats_origin::memory_stats_json ? "memory_stats" : "memory_summary";
  f[p + "rank"] = or_null(s.rank);
  f[p + "device"] = or_null(s.device);
  f[p + "allocated.current"] = or_null(s.allocated.current);
  f[p + "allocated.peak"] = or_null(s.allocated.peak);
  f[p + "active.peak"] = or_null(s.active.peak);
  f[p + "reserved.current"] = or_null(s.reserved.current);
  f[p + "reserved.peak"] = or_null(s.reserved.peak);
  f[p + "requested.peak"] = or_null(s.requested.peak);
  f[p + "inactive_split.current"] = or_null(s.inactive_split.current);
  f[p + "num_alloc_retries"] = or_null(s.num_alloc_retries);
  f[p + "num_ooms"] = or_null(s.num_ooms);
}

void add_oom(json& f, std::size_t i, const observe::oom_report& r) {
  const std::string p = "oom." + std::to_string(i) + ".";
  f[p + "kind"] = r.kind == observe::oom_kind::torch ? "torch" : "xla";
  f[p + "line"] = r.line;
  f[p + "rank"] = or_null(r.rank);
  f[p + "gpu"] = or_null(r.gpu);
  f[p + "requested"] = or_null(r.requested);
  f[p + "capacity"] = or_null(r.capacity);
  f[p + "free"] = or_null(r.free);
  f[p + "allocated"] = or_null(r.allocated_by_pytorch);
  f[p + "reserved"] = or_null(r.reserved_by_pytorch);
  f[p + "reserved_unallocated"] = or_null(r.reserved_unallocated);
  f[p + "processes"] = r.processes.size();
  for (std::size_t j = 0; j < r.processes.size(); ++j) {
    f[p + "process." + std::to_string(j) + ".pid"] = or_null(r.processes[j].pid);
    f[p + "process." + std::to_string(j) + ".used"] = r.processes[j].used;
  }
}

void flatten(const json& value, const std::string& prefix, json& out) {
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) flatten(item, prefix.empty() ? key : prefix + "." + key, out);
  } else {
    out[prefix] = value;
  }
}

}  // namespace

nlohmann::json observation_facts(const observe::observation& obs) {
  json f = json::object();
  f["gpus"] = obs.gpus.size();
  f["processes"] = obs.processes.size();
  f["stats"] = obs.stats.size();
  f["ooms"] = obs.ooms.size();
  f["driver_version"] = obs.driver_version;
  f["cuda_version"] = obs.cuda_version;
  f["warnings"] = obs.warnings.size();
  for (std::size_t i = 0; i < obs.gpus.size(); ++i) add_gpu(f, i, obs.gpus[i]);
  for (std::size_t i = 0; i < obs.processes.size(); ++i) add_process(f, i, obs.processes[i]);
  for (std::size_t i = 0; i < obs.stats.size(); ++i) add_stats(f, i, obs.stats[i]);
  for (std::size_t i = 0; i < obs.ooms.size(); ++i) add_oom(f, i, obs.ooms[i]);
  return f;
}

nlohmann::json job_facts(const job::imported_job& imported) {
  json f = json::object();
  flatten(job::to_json(imported.job), "", f);
  f["format"] = imported.format;
  // A model named by a preset: its config's keys as the facts of a model the file writes inline
  // ("model.hidden_size"), so that a batch written either way is compared with the same values.
  if (f.contains("model") && f["model"].is_string() && !f.contains("model.hidden_size") &&
      !f.contains("model.n_embd"))
    if (auto config = model::preset_config(f["model"].get<std::string>()))
      if (const json parsed = json::parse(*config, nullptr, false); parsed.is_object())
        for (const auto& [key, value] : parsed.items())
          if (value.is_primitive() && !f.contains("model." + key)) f["model." + key] = value;
  f["notes"] = imported.notes.size();
  f["hidden_size_autos"] = imported.hidden_size_autos.size();
  // The first line of every note, so that a first-sight check can tell an "unknown option" said
  // of a name the framework has from one it does not.
  json notes = json::array();
  for (const auto& n : imported.notes) {
    std::string text = n.to_string();
    notes.push_back(text.substr(0, text.find('\n')));
  }
  f["note_texts"] = notes;
  return f;
}

nlohmann::json model_facts(const model::model_spec& spec) {
  std::uint64_t params = 0;
  for (const auto& t : spec.tensors) params += t.numel();
  const auto& s = spec.text;
  return json{{"model_type", spec.model_type}, {"family", s.family},  {"hidden", s.hidden},
              {"intermediate", s.intermediate}, {"layers", s.layers}, {"heads", s.heads},
              {"kv_heads", s.kv_heads},         {"head_dim", s.head_dim}, {"vocab", s.vocab},
              {"experts", s.experts},           {"tied_embeddings", s.tied_embeddings},
              {"params", params},               {"vision", spec.vision.has_value()}};
}

}  // namespace vramscope::testing
