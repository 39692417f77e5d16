#include "accuracy/scoring.hpp"

#include <vramscope/job/job_names.hpp>
#include <vramscope/job/job_reader.hpp>
#include <vramscope/job/job_writer.hpp>
#include <vramscope/predict/prediction.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace vramscope::bench {

namespace {

diagnostic at_line(const measurement& line, const std::string& what, const diagnostic& inner) {
  return error_at(line.source, fmt::format("{}: {}", what, inner.to_string()), line.line);
}

const nlohmann::json* lookup(const nlohmann::json& resolved, const std::string& path) {
  const auto dot = path.find('.');
  if (dot == std::string::npos) return resolved.contains(path) ? &resolved[path] : nullptr;
  const std::string section = path.substr(0, dot), key = path.substr(dot + 1);
  if (!resolved.contains(section) || !resolved[section].is_object()) return nullptr;
  const auto& s = resolved[section];
  return s.contains(key) ? &s[key] : nullptr;
}

bool same_value(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_string() && b.is_string())
    return job::normalize_name(a.get<std::string>()) == job::normalize_name(b.get<std::string>());
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_value(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

std::optional<double> relative_error(std::optional<bytes> measured,
                                     std::optional<bytes> predicted) {
  if (!measured || !predicted || *measured == 0) return std::nullopt;
  return (static_cast<double>(*predicted) - static_cast<double>(*measured)) /
         static_cast<double>(*measured);
}

void fill_levels(case_result& out, const predict::rank_prediction& rank, bytes capacity) {
  const bool alone = out.line.process_group != "real";
  const bytes device = alone ? rank.peak.reserved + rank.context : rank.peak.device;
  const std::array<bytes, 4> predicted{rank.peak.allocated, rank.peak.active, rank.peak.reserved,
                                       device};
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    auto& level = out.levels[i];
    level.measured = out.line.peak[i];
    level.predicted = predicted[i];
    if (out.line.oom != true && out.mismatches.empty())
      level.error = relative_error(level.measured, level.predicted);
  }
  out.predicted_oom = rank.oom.has_value() || device > capacity;
  out.peak_phase = rank.peak_phase;
}

}  // namespace

result<const model::model_spec*> scorer::model_of(const std::string& name,
                                                  const measurement& line) {
  if (auto it = models_.find(name); it != models_.end()) return &it->second;
  auto model = model::load_model(name);
  if (!model) return at_line(line, "model", model.error());
  return &models_.emplace(name, std::move(*model)).first->second;
}

result<case_result> scorer::score(const measurement& line) {
  auto job = job::parse_job_yaml(line.job.dump(), "job");
  if (!job) return at_line(line, "job", job.error());
  // The driver's reservation is the run's condition, not the job's: a line measured before the
  // catalog knew its GPU's reservation ran with the one the harness applied (0), as planned.
  if (line.applied.is_object() && line.applied.contains("hardware.driver_reserved") &&
      line.applied["hardware.driver_reserved"].is_number_unsigned())
    job->hardware.driver_reserved = line.applied["hardware.driver_reserved"].get<bytes>();
  auto model = model_of(job->model, line);
  if (!model) return model.error();
  auto plan = predict::plan(**model, *job);
  if (!plan) return at_line(line, "plan", plan.error());
  const auto it = std::find_if(plan->ranks.begin(), plan->ranks.end(),
                               [&](const auto& r) { return r.rank == line.rank; });
  if (it == plan->ranks.end())
    return error_at(line.source,
                    fmt::format("rank {} does not exist in the planned job ({} ranks)", line.rank,
                                plan->ranks.size()),
                    line.line);
  case_result out;
  out.line = line;
  if (line.applied.is_object()) out.mismatches = compare_applied(line.applied, job::to_json(*job));
  fill_levels(out, *it, job->hardware.capacity);
  return out;
}

std::vector<std::string> compare_applied(const nlohmann::json& applied,
                                         const nlohmann::json& resolved) {
  std::vector<std::string> out;
  for (const auto& [path, value] : applied.items()) {
    const nlohmann::json* planned = lookup(resolved, path);
    if (planned == nullptr)
      out.push_back(
          fmt::format("{}: harness ran {}, the planner has no such field", path, value.dump()));
    else if (!same_value(value, *planned))
      out.push_back(fmt::format("{}: harness ran {}, planner resolved {}", path, value.dump(),
                                planned->dump()));
  }
  return out;
}

double quantile(std::vector<double> values, double q) {
  VRAMSCOPE_EXPECTS(!values.empty(), "quantile of no values");
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return values[below] + (values[above] - values[below]) * fraction;
}

summary summarize(const std::vector<case_result>& cases) {
  summary out;
  std::array<std::vector<double>, 4> measured_errors, placeholder_errors;
  for (const auto& c : cases) {
    auto& group = c.line.measured ? out.measured : out.not_measured;
    auto& errors = c.line.measured ? measured_errors : placeholder_errors;
    ++group.cases;
    if (!c.mismatches.empty()) continue;
    if (c.line.oom.has_value()) {
      ++group.oom_total;
      if (c.predicted_oom == *c.line.oom) ++group.oom_agree;
    }
    for (std::size_t i = 0; i < c.levels.size(); ++i)
      if (c.levels[i].error) errors[i].push_back(std::abs(*c.levels[i].error));
  }
  auto fill = [](group_summary& group, const std::array<std::vector<double>, 4>& errors) {
    for (std::size_t i = 0; i < errors.size(); ++i) {
      if (errors[i].empty()) continue;
      group.levels[i] = {errors[i].size(), quantile(errors[i], 0.5), quantile(errors[i], 0.9)};
    }
  };
  fill(out.measured, measured_errors);
  fill(out.not_measured, placeholder_errors);
  return out;
}

}  // namespace vramscope::bench
