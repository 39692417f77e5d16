#pragma once
// Shared by plan, compare, fit and explain (and the what-if engine): read a job spec (with --set
// overrides) or import a framework config, and load its model (a path is taken relative to the
// job file). Planning itself is predict::plan.

#include <string>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/job/importers.hpp>
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

/// The pieces of load_job_and_model, for the what-if engine, which loads once and varies per row:
/// the job file read with `overrides` set but not resolved (load_job before resolve_job) ...
result<job_spec> read_job_unresolved(const std::string& path,
                                          const std::vector<std::string>& overrides);
/// ... the framework config at `from` imported with `overrides` applied, resolved ...
result<job_spec> import_job(const std::string& from, const std::vector<std::string>& overrides,
                                 warnings& notes, std::vector<hidden_size_auto>& autos);
/// ... and the job's model (a path in `job.model` is taken relative to the job file `path`).
result<model::model_spec> load_model_of(const job_spec& job, const std::string& path);

}  // namespace vramscope::job
