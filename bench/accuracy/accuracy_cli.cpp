#include "accuracy/accuracy_cli.hpp"

#include <vramscope/core/io.hpp>

#include <CLI/CLI.hpp>

#include <optional>

#include "accuracy/baseline.hpp"
#include "accuracy/groundtruth.hpp"
#include "accuracy/published.hpp"
#include "accuracy/published_report.hpp"
#include "accuracy/scoring.hpp"
#include "accuracy/table.hpp"

namespace vramscope::bench {

namespace {

constexpr int exit_ok = 0, exit_worse = 1, exit_bad_input = 2;

struct options {
  std::vector<std::string> files;
  std::string baseline;
  std::string write_baseline;
  bool gate_not_measured = false;
  std::string published;    // folder of the published yardstick (records.jsonl + jobs)
  std::string unexpressed;  // its list of records the job spec cannot express
};

// Returns -1 when the run should go on, else the exit status (after --help or a usage error).
int parse(const std::vector<std::string>& args, options& o, std::ostream& out, std::ostream& err) {
  CLI::App app{"Score vramscope's predictions against ground-truth measurements (JSONL)",
               "vramscope_accuracy"};
  app.add_option("files", o.files, "ground-truth JSONL files");
  app.add_option("--published", o.published,
                 "score the published yardstick in this folder instead (records.jsonl, "
                 "<id>.yaml)");
  app.add_option("--unexpressed", o.unexpressed,
                 "with --published: the Markdown list of records the job spec cannot express");
  app.add_option("--baseline", o.baseline, "fail when a figure is worse than this baseline");
  app.add_option("--write-baseline", o.write_baseline, "write the current figures here");
  app.add_flag("--gate-not-measured", o.gate_not_measured,
               "compare placeholder lines with the baseline too");
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return exit_ok;
  } catch (const CLI::ParseError& e) {
    err << "vramscope_accuracy: " << e.what() << "\n";
    return exit_bad_input;
  }
  const char* usage = nullptr;
  if (o.published.empty() && o.files.empty()) usage = "give ground-truth files or --published";
  if (!o.published.empty() && !o.files.empty())
    usage = "give ground-truth files or --published, not both";
  if (o.published.empty() != o.unexpressed.empty())
    usage = "--published and --unexpressed go together";
  if (!o.published.empty() && o.gate_not_measured)
    usage = "--gate-not-measured applies to ground-truth files only";
  if (usage != nullptr) {
    err << "vramscope_accuracy: " << usage << "\n";
    return exit_bad_input;
  }
  return -1;
}

int bad_input(std::ostream& err, const diagnostic& d) {
  err << "vramscope_accuracy: " << d.to_string() << "\n";
  return exit_bad_input;
}

int check_baseline(const options& o, const summary& before, const summary& now, std::ostream& out) {
  auto worse = regressions(before.measured, now.measured, "measured");
  const auto better = improvements(before.measured, now.measured, "measured");
  if (o.gate_not_measured) {
    auto more = regressions(before.not_measured, now.not_measured, "not measured");
    worse.insert(worse.end(), more.begin(), more.end());
  }
  for (const auto& w : worse) out << "WORSE than " << o.baseline << ": " << w << "\n";
  if (worse.empty()) out << "baseline " << o.baseline << ": nothing got worse\n";
  if (worse.empty() && !better.empty())
    out << "improved (refresh the baseline with --write-baseline): " << better.size()
        << " level(s)\n";
  return worse.empty() ? exit_ok : exit_worse;
}

int run_published(const options& o, std::ostream& out, std::ostream& err) {
  std::optional<std::vector<published_group>> before;
  if (!o.baseline.empty()) {
    auto read = read_published_baseline(o.baseline);
    if (!read) return bad_input(err, read.error());
    before = *read;
  }
  auto unexpressed = read_unexpressed(o.unexpressed);
  if (!unexpressed) return bad_input(err, unexpressed.error());
  auto set = score_published(o.published, *unexpressed);
  if (!set) return bad_input(err, set.error());
  const auto groups = summarize_published(*set);
  out << render_published(*set, groups);
  int status = exit_ok;
  if (before) {
    const auto worse = published_regressions(*before, groups);
    for (const auto& w : worse) out << "WORSE than " << o.baseline << ": " << w << "\n";
    if (worse.empty()) out << "baseline " << o.baseline << ": nothing got worse\n";
    if (worse.empty() && !published_improvements(*before, groups).empty())
      out << "improved (refresh the baseline with --write-baseline)\n";
    if (!worse.empty()) status = exit_worse;
  }
  if (!o.write_baseline.empty()) {
    auto written =
        write_file_atomic(o.write_baseline, to_published_baseline_json(groups).dump(2) + "\n");
    if (!written) return bad_input(err, written.error());
    out << "wrote " << o.write_baseline << "\n";
  }
  return status;
}

}  // namespace

int run_accuracy(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  options o;
  if (const int code = parse(args, o, out, err); code >= 0) return code;
  if (!o.published.empty()) return run_published(o, out, err);
  std::optional<summary> before;
  if (!o.baseline.empty()) {
    auto read = read_baseline(o.baseline);
    if (!read) return bad_input(err, read.error());
    before = *read;
  }
  std::vector<measurement> lines;
  for (const auto& file : o.files) {
    auto read = read_groundtruth(file);
    if (!read) return bad_input(err, read.error());
    lines.insert(lines.end(), read->begin(), read->end());
  }
  scorer plans;
  std::vector<case_result> cases;
  std::size_t mismatched = 0;
  for (const auto& line : lines) {
    auto scored = plans.score(line);
    if (!scored) return bad_input(err, scored.error());
    if (!scored->mismatches.empty()) ++mismatched;
    cases.push_back(std::move(*scored));
  }
  const summary s = summarize(cases);
  const std::string banner = not_measured_banner(s);
  out << banner << (banner.empty() ? "" : "\n") << render_cases(cases) << render_summary(s)
      << banner;
  int status = exit_ok;
  if (mismatched > 0) {
    err << "vramscope_accuracy: the harness and the planner resolved " << mismatched
        << " job(s) differently (MISMATCH lines above); bench/groundtruth/jobspec.py and the "
           "job module must agree\n";
    status = exit_worse;
  }
  if (before && check_baseline(o, *before, s, out) != exit_ok) status = exit_worse;
  if (!o.write_baseline.empty() && mismatched == 0) {
    auto written = write_file_atomic(o.write_baseline, to_baseline_json(s).dump(2) + "\n");
    if (!written) return bad_input(err, written.error());
    out << "wrote " << o.write_baseline << "\n";
  }
  return status;
}

}  // namespace vramscope::bench
