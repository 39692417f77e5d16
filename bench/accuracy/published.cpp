// Scoring the published yardstick: one job per expressible record, planned and compared on
// the level the record measured.
#include "accuracy/published.hpp"

#include <vramscope/job/job_reader.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/predict/prediction.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <set>

#include "accuracy/groundtruth.hpp"
#include "accuracy/scoring.hpp"

namespace vramscope::bench {

namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 7> group_order{"LR", "TO", "TL", "PD", "TN", "PM", "MG"};

diagnostic at_record(const published_record& r, const std::string& message) {
  return error_at(r.source, fmt::format("record {}: {}", r.id, message), r.line);
}

class model_cache {
 public:
  result<const model::model_spec*> get(const std::string& name, const std::string& job_file) {
    if (auto it = models_.find(name); it != models_.end()) return &it->second;
    auto model = model::load_model(name);
    if (!model) return error_at(job_file, fmt::format("model: {}", model.error().to_string()));
    return &models_.emplace(name, std::move(*model)).first->second;
  }

 private:
  std::map<std::string, model::model_spec> models_;
};

bytes level_bytes(const predict::levels& peak, std::size_t level) {
  const std::array<bytes, 4> by_level{peak.allocated, peak.active, peak.reserved, peak.device};
  return by_level.at(level);
}

result<published_case> score_one(const published_record& r, const std::string& job_file,
                                 model_cache& models) {
  auto job = job::load_job(job_file);
  if (!job) return job.error();
  auto model = models.get(job->model, job_file);
  if (!model) return model.error();
  auto plan = predict::plan(**model, *job);
  if (!plan) return error_at(job_file, fmt::format("plan: {}", plan.error().to_string()));
  const auto rank0 = std::find_if(plan->ranks.begin(), plan->ranks.end(),
                                  [](const auto& rank) { return rank.rank == 0; });
  if (rank0 == plan->ranks.end()) return error_at(job_file, "the plan has no rank 0");
  published_case c;
  c.record = r;
  c.job_file = job_file;
  c.predicted_oom =
      !plan->fits || std::any_of(plan->ranks.begin(), plan->ranks.end(),
                                 [](const auto& rank) { return rank.oom.has_value(); });
  c.peak_phase = rank0->peak_phase;
  if (r.level) c.predicted = level_bytes(rank0->peak, *r.level);
  if (c.predicted && r.value && !r.oom)
    c.error = (static_cast<double>(*c.predicted) - static_cast<double>(*r.value)) /
              static_cast<double>(*r.value);
  return c;
}

// Job files that name no record of the set: a typo in a file name must not go unscored.
std::optional<diagnostic> check_job_files(const std::string& dir,
                                          const std::set<std::string>& ids) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string id = entry.path().stem().string();
    if (!ids.contains(id))
      return error_at(entry.path().string(),
                      fmt::format("names no record of {}/records.jsonl", dir));
  }
  if (ec) return error_at(dir, "cannot list the folder: " + ec.message());
  return std::nullopt;
}

// `errors` collects signed relative errors; the median and p90 are of their magnitudes.
void add(published_group& g, const std::optional<published_case>& c, std::vector<double>& errors) {
  ++g.records;
  if (!c) return;
  ++g.expressed;
  ++g.oom_total;
  if (c->predicted_oom == c->record.oom) ++g.oom_agree;
  if (c->error) errors.push_back(*c->error);
}

void finish(published_group& g, const std::vector<double>& errors) {
  g.n = errors.size();
  if (errors.empty()) return;
  std::vector<double> magnitudes;
  magnitudes.reserve(errors.size());
  double sum = 0;
  for (const double e : errors) {
    magnitudes.push_back(std::abs(e));
    sum += e;
  }
  g.median = quantile(magnitudes, 0.5);
  g.p90 = quantile(magnitudes, 0.9);
  g.bias = sum / static_cast<double>(errors.size());
}

}  // namespace

result<published_set> score_published(const std::string& dir,
                                      const std::map<std::string, std::string>& unexpressed) {
  auto records = read_published_records((fs::path(dir) / "records.jsonl").string());
  if (!records) return records.error();
  std::set<std::string> ids;
  for (const auto& r : *records) ids.insert(r.id);
  if (auto err = check_job_files(dir, ids)) return *err;
  for (const auto& [id, feature] : unexpressed)
    if (!ids.contains(id))
      return error_at(dir, fmt::format("{} is listed as not expressible but is no record", id));
  published_set out;
  model_cache models;
  for (const auto& r : *records) {
    const std::string job_file = (fs::path(dir) / (r.id + ".yaml")).string();
    const bool has_job = fs::exists(job_file);
    const auto listed = unexpressed.find(r.id);
    if (r.quality == 'C') {
      if (has_job) return at_record(r, "quality C is never scored, but " + job_file + " exists");
      ++out.quality_c;
      continue;
    }
    if (has_job && listed != unexpressed.end())
      return at_record(r, fmt::format("has a job ({}) and is listed as not expressible", job_file));
    if (!has_job && listed == unexpressed.end())
      return at_record(r, fmt::format("quality {} but neither {} nor a not-expressible entry",
                                      r.quality, job_file));
    if (!has_job) {
      out.unexpressed.emplace_back(r, listed->second);
      continue;
    }
    auto scored = score_one(r, job_file, models);
    if (!scored) return scored.error();
    out.cases.push_back(std::move(*scored));
  }
  return out;
}

std::vector<published_group> summarize_published(const published_set& set) {
  std::map<std::string, std::vector<std::optional<published_case>>> by_group;
  for (const auto& c : set.cases) by_group[c.record.group].emplace_back(c);
  for (const auto& [r, feature] : set.unexpressed) by_group[r.group].emplace_back(std::nullopt);
  std::vector<std::string> names(group_order.begin(), group_order.end());
  for (const auto& [name, members] : by_group)
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  std::vector<published_group> out;
  published_group all{"all"}, exact{"exact"};
  std::vector<double> all_errors, exact_errors;
  for (const auto& name : names) {
    published_group g{name};
    std::vector<double> errors;
    for (const auto& c : by_group[name]) {
      add(g, c, errors);
      add(all, c, all_errors);
    }
    finish(g, errors);
    out.push_back(g);
  }
  // Exact translations: records whose sequence length is the real one (not a cap).
  for (const auto& c : set.cases)
    if (c.record.exact_length) add(exact, c, exact_errors);
  for (const auto& [r, feature] : set.unexpressed)
    if (r.exact_length) add(exact, std::nullopt, exact_errors);
  finish(all, all_errors);
  finish(exact, exact_errors);
  out.push_back(all);
  out.push_back(exact);
  return out;
}

}  // namespace vramscope::bench
