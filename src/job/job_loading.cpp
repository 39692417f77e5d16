#include <vramscope/job/job_loading.hpp>

#include <vramscope/core/io.hpp>
#include <vramscope/job/job_reader.hpp>
#include <vramscope/job/overrides.hpp>

#include <vramscope/model/catalog.hpp>
#include <vramscope/model/config_reader.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace vramscope::job {

// The largest job file read: job files are a few kB, and yaml-cpp holds about 50 bytes per byte
// of a file of many keys (a 3.4 MB file of 100,000 keys peaked at 161 MiB), so the size bounds
// the memory.
constexpr bytes max_job_file = 1_MiB;

result<job_spec> read_job_unresolved(const std::string& path,
                                          const std::vector<std::string>& overrides) {
  auto text = read_file(path, max_job_file);
  if (!text) return text.error();
  auto job = read_job_yaml(*text, path);
  if (!job) return job;
  for (const auto& o : overrides)
    if (auto set = set_field(*job, o); !set) return set.error();
  // A length histogram given as a relative path is relative to the job file, like a model.
  auto& lengths = job->training.length_file;
  const auto beside = std::filesystem::path(path).parent_path() / lengths;
  if (!lengths.empty() && !std::filesystem::path(lengths).is_absolute() &&
      std::filesystem::exists(beside))
    lengths = beside.string();
  return job;
}

namespace {

// Where a problem of an inline model is reported: the key's line, else the `model:` line.
diagnostic inline_location(const job_spec& job, const model_key* key) {
  if (key != nullptr && !key->where.source.empty()) return key->where;
  const auto set = job.provenance.set_at.find("model");
  if (set != job.provenance.set_at.end()) return set->second;
  return diagnostic{job.provenance.source, 0, 0, "", ""};
}

// An inline model: its keys become a config.json, one key a line, so that a problem the reader
// finds on line n is the key written (n - 1)th. A key the family never reads is an error when it
// is close to one it reads (a misspelling), else a note (a key with no memory effect).
result<model::model_spec> load_inline_model(const job_spec& job) {
  for (const auto& k : job.model_config)
    if (!k.unknown.empty()) {
      diagnostic d = inline_location(job, &k);
      d.message = k.unknown;
      return d;
    }
  std::string text = "{\n";
  for (std::size_t i = 0; i < job.model_config.size(); ++i)
    text += fmt::format("{}: {}{}\n", nlohmann::json(job.model_config[i].key).dump(),
                        job.model_config[i].json,
                        i + 1 < job.model_config.size() ? "," : "");
  text += "}\n";
  model::config_keys keys;
  auto model = model::parse_config_json(text, job.model, keys);
  const auto key_named = [&](const std::string& name) -> const model_key* {
    for (const auto& k : job.model_config)
      if (k.key == name) return &k;
    return nullptr;
  };
  if (!model) {
    const int line = model.error().line;
    const model_key* key = line >= 2 && static_cast<std::size_t>(line - 2) < job.model_config.size()
                               ? &job.model_config[static_cast<std::size_t>(line - 2)]
                               : nullptr;
    diagnostic d = inline_location(job, key);
    d.message = "model: " + model.error().message;
    return d;
  }
  // A key the family's published configs carry (a preset's config.json of the same model_type)
  // is a real key the reader leaves alone, noted, never taken for a misspelling of one it reads
  // (GPT-2's embd_pdrop is three edits from resid_pdrop).
  const auto published = keys.unread.empty() ? std::vector<std::string>{}
                                             : model::preset_config_keys(model->model_type);
  for (const auto& name : keys.unread) {
    if (name == "_name_or_path") continue;
    const bool real_key = std::find(published.begin(), published.end(), name) != published.end();
    const std::string near = real_key ? std::string() : did_you_mean(name, keys.read);
    diagnostic d = inline_location(job, key_named(name));
    if (!near.empty()) {
      d.message = fmt::format("model: key \"{}\" is not one vramscope reads for model_type {} (did "
                              "you mean \"{}\"?)", name, model->model_type, near);
      return d;
    }
    d.message = fmt::format("model: key \"{}\" is not read for model_type {} (no memory effect, "
                            "or not modelled); ignored", name, model->model_type);
    model->notes.push_back(std::move(d));
  }
  model->name = job.model;
  return model;
}

}  // namespace

result<model::model_spec> load_model_of(const job_spec& job, const std::string& path) {
  if (!job.model_config.empty()) return load_inline_model(job);
  std::string model_ref = job.model;
  // A model given as a path is relative to the job file, like an include.
  const auto beside = std::filesystem::path(path).parent_path() / model_ref;
  if (model_ref.find('/') != std::string::npos && !std::filesystem::path(model_ref).is_absolute() &&
      std::filesystem::exists(beside))
    model_ref = beside.string();
  auto model = model::load_model(model_ref);
  // A name that is no preset, or a path that is not here (a template's placeholder, another
  // machine's folder): point at the option that chose it (a job's `model:` line, a launch's
  // --model_name_or_path, the torchtitan name/flavour it was derived from) and say how to give
  // the model instead. A file that is there but unreadable keeps its own line.
  std::error_code ec;
  if (!model && !std::filesystem::exists(model_ref, ec)) {
    const auto set = job.provenance.set_at.find("model");
    if (set != job.provenance.set_at.end() && !set->second.source.empty()) {
      diagnostic d = set->second;
      d.message = "model \"" + job.model + "\": " + model.error().message +
                  (model_ref.find('/') == std::string::npos
                       ? "; for a model that is not a preset give its config.json with --set "
                         "model=PATH/config.json"
                       : "; to plan it, give the preset of the same shapes or a readable "
                         "config.json with --set model=...");
      return d;
    }
  }
  if (!model) {
    auto d = model.error();
    if (d.source.empty()) d.source = path;
    d.message = "model \"" + job.model + "\": " + d.message;
    return d;
  }
  return model;
}

}  // namespace vramscope::job
