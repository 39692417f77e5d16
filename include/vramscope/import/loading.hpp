#pragma once
// Shared by plan, compare, fit and explain (and the what-if engine): read a job spec (with --set
// overrides) or import a framework config, and load its model (a path is taken relative to the
// job file). Planning itself is predict::plan.

#include <string>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/import/importers.hpp>
#include <vramscope/job/job_loading.hpp>
#include <vramscope/job/job_spec.hpp>
#include <vramscope/model/model_spec.hpp>

namespace vramscope::job {

struct loaded_job {
  job_spec job;
  model::model_spec model;
  warnings notes;
};

/// Loads the job spec at `path` — or, when `from` is given, imports the framework config at
/// `from` (accelerate YAML, DeepSpeed JSON, torchtitan TOML) — applies `overrides`, then loads
/// its model. Importer notes (unknown or unmodelled options) land in `notes`.
result<loaded_job> load_job_and_model(const std::string& path,
                                      const std::vector<std::string>& overrides,
                                      const std::string& from = "");

/// The framework config at `from` imported with `overrides` applied, resolved: the piece of
/// load_job_and_model the what-if engine calls for --from (read_job_unresolved and load_model_of
/// in job_loading.hpp are the others).
result<job_spec> import_job(const std::string& from, const std::vector<std::string>& overrides,
                                 warnings& notes, std::vector<hidden_size_auto>& autos);

}  // namespace vramscope::job
