#pragma once
// A job read from YAML, its model and its plan, held together so that a doctor_input can point
// at them, as `vramscope explain job.yaml` builds it (cli/cmd_explain.cpp). For the rule tests
// that need a job; the others fill observations by hand.

#include <vramscope/doctor/finding.hpp>
#include <vramscope/job/job_reader.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/predict/prediction.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

namespace vramscope::doctor {

struct planned_job {
  job::job_spec job;
  model::model_spec model;
  predict::prediction prediction;

  /// Points at this object's job, model and prediction: valid while it lives.
  [[nodiscard]] doctor_input input(const observe::observation* observed = nullptr) const {
    doctor_input in;
    in.job = &job;
    in.model = &model;
    in.prediction = &prediction;
    in.observed = observed;
    return in;
  }

  /// Device bytes of the busiest GPU, the figure every rule's saving is measured on.
  [[nodiscard]] std::int64_t busiest_device() const {
    return static_cast<std::int64_t>(predict::busiest_rank(prediction).peak.device);
  }
};

/// Reads, resolves and plans `yaml`; a test failure (and nothing) when any step fails.
inline std::optional<planned_job> plan_yaml(const std::string& yaml) {
  auto j = job::parse_job_yaml(yaml, "job.yaml");
  if (!j) {
    ADD_FAILURE() << j.error().to_string();
    return std::nullopt;
  }
  auto m = model::load_model(j->model);
  if (!m) {
    ADD_FAILURE() << m.error().to_string();
    return std::nullopt;
  }
  auto p = predict::plan(*m, *j);
  if (!p) {
    ADD_FAILURE() << p.error().to_string();
    return std::nullopt;
  }
  return planned_job{std::move(*j), std::move(*m), std::move(*p)};
}

}  // namespace vramscope::doctor
