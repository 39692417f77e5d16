#include <vramscope/import/loading.hpp>

#include <vramscope/import/importers.hpp>
#include <vramscope/job/job_reader.hpp>
#include <vramscope/job/model_checks.hpp>
#include <vramscope/job/overrides.hpp>
#include <vramscope/job/resolve.hpp>

#include <utility>

namespace vramscope::job {

// `trainer.*` items of --set are the HF Trainer's arguments that fill DeepSpeed "auto" values;
// the values filled from the model's hidden size wait in `autos` until the model is loaded.
result<job_spec> import_job(const std::string& from, const std::vector<std::string>& overrides,
                                 warnings& notes, std::vector<hidden_size_auto>& autos) {
  trainer_args trainer;
  std::vector<std::string> rest;
  if (auto taken = take_trainer_args(overrides, trainer, rest); !taken) return taken.error();
  auto imported = import_config(from, trainer);
  if (!imported) return imported.error();
  notes.insert(notes.end(), imported->notes.begin(), imported->notes.end());
  autos = std::move(imported->hidden_size_autos);
  job_spec j = std::move(imported->job);
  if (auto applied = apply_overrides(j, rest, &notes); !applied) return applied.error();
  // What the file leaves to the launch's command line stops the plan unless --set gives it.
  for (const unsettled_value& u : imported->unsettled)
    if (const auto set = j.provenance.set_at.find(u.settled_by);
        set == j.provenance.set_at.end() || set->second.source != "--set")
      return u.refusal;
  if (auto resolved = resolve_job(j, &notes); !resolved) return resolved.error();
  return j;
}

result<loaded_job> load_job_and_model(const std::string& path,
                                      const std::vector<std::string>& overrides,
                                      const std::string& from) {
  loaded_job out;
  if (path.empty() && from.empty())
    return error_at("", "no job: give a job spec (JOB.yaml) or --from a framework config");
  std::vector<hidden_size_auto> autos;
  auto job = from.empty() ? load_job(path, overrides, &out.notes)
                          : import_job(from, overrides, out.notes, autos);
  if (!job) return job.error();
  out.job = std::move(*job);
  auto model = load_model_of(out.job, path);
  if (!model) return model.error();
  out.model = std::move(*model);
  // An inline model's keys that have no effect (job/job_loading.cpp) are the job's notes.
  if (!out.job.model_config.empty())
    out.notes.insert(out.notes.end(), out.model.notes.begin(), out.model.notes.end());
  fill_hidden_size_autos(out.job, autos, out.model.text.hidden, overrides, &out.notes);
  complete_with_model(out.job, out.model);
  if (auto checked = check_against_model(out.job, out.model); !checked) return checked.error();
  return out;
}

}  // namespace vramscope::job
