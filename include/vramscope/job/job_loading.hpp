#pragma once
// The job spec's part of loading a job: the job file read with its --set overrides, and the job's
// model loaded (a path is taken relative to the job file). import/loading.hpp puts these together
// with the importers (load_job_and_model, shared by every command that plans).

#include <string>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/job/job_spec.hpp>
#include <vramscope/model/model_spec.hpp>

namespace vramscope::job {

/// The job file read with `overrides` set but not resolved (load_job before resolve_job); the
/// what-if engine, which loads once and varies per row, calls it and load_model_of itself.
result<job_spec> read_job_unresolved(const std::string& path,
                                          const std::vector<std::string>& overrides);
/// The job's model (a path in `job.model` is taken relative to the job file `path`).
result<model::model_spec> load_model_of(const job_spec& job, const std::string& path);

}  // namespace vramscope::job
