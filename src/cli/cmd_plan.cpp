// vramscope plan JOB.yaml [--json] [--timeline FILE.csv] [--html FILE.html] [--rank N] [--set key=value ...]

#include <vramscope/core/io.hpp>
#include <vramscope/import/loading.hpp>
#include <vramscope/predict/rank_runs.hpp>
#include <vramscope/report/plan_report.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/messages.hpp"

namespace vramscope::cli {

namespace {

struct plan_args {
  std::string job_path;
  bool json = false;
  std::string timeline, html, from;
  int rank = -1;
  std::vector<std::string> overrides;
  bool verbose = false;
};

// Leaves rank `rank` alone in prediction::ranks (the GPUs stay whole): the one rank, with its own
// numbers, of a plan kept as ranges.
void only_rank(predict::prediction& p, int rank) {
  if (p.ranks.empty()) {
    if (auto r = predict::rank_of(p, rank)) p.ranks.push_back(std::move(*r));
    return;
  }
  std::erase_if(p.ranks, [rank](const auto& r) { return r.rank != rank; });
}

}  // namespace

int cmd_plan(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"Predict the per-rank and per-GPU memory of a training job", "plan"};
  app.footer(std::string(verdict_exit_codes));
  plan_args a;
  app.add_option("job", a.job_path, "job spec (YAML)");
  app.add_option("--from", a.from, from_option_help);
  app.add_flag("--json", a.json, "print the prediction as JSON");
  app.add_option("--timeline", a.timeline, "write the allocated/reserved curve per rank as CSV");
  app.add_option("--html", a.html, "write a self-contained HTML report (curves, breakdown, GPUs)");
  app.add_option("--rank", a.rank, "show only this rank")->check(CLI::NonNegativeNumber);
  app.add_option("--set", a.overrides, "override a job field, e.g. --set parallel.tp=4");
  app.add_flag("--verbose", a.verbose, "print every warning on its own line, with its place");
  int code = 0;
  if (!parse_args(app, args, out, err, code)) return code;

  auto loaded = job::load_job_and_model(a.job_path, a.overrides, a.from);
  if (!loaded) return report_bad_input(err, "plan", loaded.error());
  print_notes(err, loaded->notes, {a.overrides, a.verbose});
  predict::predict_options options;
  options.timeline = !a.timeline.empty() || !a.html.empty();
  options.rank_ranges = true;  // the reports read ranges of alike ranks (predict/rank_runs.hpp)
  auto p = predict::plan(loaded->model, loaded->job, options);
  if (!p) return report_bad_input(err, "plan", p.error());
  predict::fill_whole_step_need(loaded->model, loaded->job, *p);
  if (a.rank >= 0) {
    if (a.rank >= predict::rank_count(*p))
      return report_bad_input(err, "plan", error_at("--rank", "rank " + std::to_string(a.rank) +
                                                              " does not exist in this job"));
    only_rank(*p, a.rank);
  }
  if (!a.timeline.empty())
    if (auto written = write_file_atomic(a.timeline, report::timeline_csv(*p)); !written)
      return report_bad_input(err, "plan", written.error());
  if (!a.html.empty())
    if (auto written = write_file_atomic(a.html, report::plan_html(*p)); !written)
      return report_bad_input(err, "plan", written.error());
  out << (a.json ? report::plan_json(*p).dump(2) + "\n" : report::render_plan_text(*p));
  return exit_code_of(predict::state_of(*p));
}

}  // namespace vramscope::cli
