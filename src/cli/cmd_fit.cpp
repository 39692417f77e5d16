// vramscope fit (JOB.yaml | --from CONFIG) [--maximize KEY [--up-to N]] [--try KEY=a,b|1..64|pow2:1..128 ...]
//     [--set key=value ...] [--json] [--html FILE.html]
// With no option, the largest training.micro_batch that fits; with --maximize, the largest value
// of another integer field; with --try, the combinations that fit, cheapest first.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "cli/axes.hpp"
#include "cli/commands.hpp"
#include "cli/messages.hpp"

#include <vramscope/core/io.hpp>
#include <vramscope/report/whatif_report.hpp>
#include <vramscope/whatif/fit_search.hpp>
#include <vramscope/whatif/what_if.hpp>

namespace vramscope::cli {

namespace {

struct fit_args {
  std::string job_path, from, maximize = "training.micro_batch";
  std::int64_t up_to = 0;
  std::vector<std::string> tries, overrides;
  std::string html;
  bool json = false, verbose = false;
};

// 0 when something fits outside the margin, 4 when something fits only inside it, else 1.
int exit_code(bool any_fits, bool any_tight) {
  return exit_code_of(any_fits    ? predict::fit_state::fits
                      : any_tight ? predict::fit_state::tight
                                  : predict::fit_state::does_not_fit);
}

int run_maximize(const whatif::what_if& engine, const fit_args& a, std::ostream& out, std::ostream& err) {
  const auto& monotone = whatif::monotone_keys();
  const bool bisected = std::find(monotone.begin(), monotone.end(), a.maximize) != monotone.end();
  const std::int64_t up_to = a.up_to > 0 ? a.up_to : bisected ? 1 << 20 : 64;
  auto found = whatif::maximize(engine, a.maximize, up_to);
  if (!found) return report_bad_input(err, "fit", found.error());
  if (!a.html.empty())
    if (auto written = write_file_atomic(a.html, report::sweep_html(report::maximize_page(engine.base_job(), *found)));
        !written)
      return report_bad_input(err, "fit", written.error());
  if (a.json) out << report::maximize_json(*found).dump(2) << "\n";
  else out << report::render_maximize(engine.base_job(), *found);
  return exit_code(found->best_value.has_value(),
                   found->miss && found->miss->state() == predict::fit_state::tight);
}

int run_try(const whatif::what_if& engine, const fit_args& a, std::ostream& out, std::ostream& err) {
  auto axes = parse_axes(a.tries, "--try");
  if (!axes) return report_bad_input(err, "fit", axes.error());
  for (const auto& ax : *axes)
    for (const auto& v : ax.values)
      if (auto checked = engine.check_settings({ax.key + "=" + v}, "--try"); !checked)
        return report_bad_input(err, "fit", checked.error());
  const auto rows = combinations(*axes);
  auto results = engine.evaluate_all(rows, "--try", false);
  whatif::try_summary s = whatif::summarize(std::move(results), rows);
  if (s.fitting.empty())
    if (auto filled = whatif::fill_closest_miss(engine, s); !filled)
      return report_bad_input(err, "fit", filled.error());
  if (!a.html.empty()) {
    // The page draws what each miss would need: plan them again with unlimited memory.
    for (auto& miss : s.missing)
      if (!miss.need)
        if (auto filled = engine.fill_need(miss, "--try"); !filled)
          return report_bad_input(err, "fit", filled.error());
    if (auto written = write_file_atomic(a.html, report::sweep_html(report::try_page(engine.base_job(), s)));
        !written)
      return report_bad_input(err, "fit", written.error());
  }
  if (a.json) out << report::try_json(s).dump(2) << "\n";
  else out << report::render_try(engine.base_job(), s);
  return exit_code(!s.fitting.empty(), !s.tight.empty());
}

}  // namespace

int cmd_fit(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"The largest job that fits, or which combinations of settings fit", "fit"};
  app.footer(
      "Fits means fits outside the safety margin (hardware.margin): the search maximizes "
      "under it. " +
      std::string(verdict_exit_codes));
  fit_args a;
  app.add_option("job", a.job_path, "job spec (YAML)");
  app.add_option("--from", a.from, from_option_help);
  auto* max_opt = app.add_option("--maximize", a.maximize,
                                 "integer field to maximize (default training.micro_batch)");
  app.add_option("--up-to", a.up_to,
                 "largest value --maximize tries (default 1048576 for micro_batch, seq_len, "
                 "lora.rank, lora.virtual_tokens; 64, scanned one by one, for other fields)");
  auto* try_opt = app.add_option("--try", a.tries,
                                 "KEY=a,b,... with ranges 1..64 and pow2:1..128 (repeatable): "
                                 "list the combinations that fit");
  app.add_option("--set", a.overrides, "override a job field for every configuration");
  app.add_flag("--verbose", a.verbose, "print every warning on its own line, with its place");
  app.add_flag("--json", a.json, "print the result as JSON");
  app.add_option("--html", a.html,
                 "write a self-contained HTML page: each configuration's memory against capacity");
  max_opt->excludes(try_opt);
  int code = 0;
  if (!parse_args(app, args, out, err, code)) return code;
  if (a.up_to < 0)
    return report_bad_input(err, "fit", error_at("--up-to", "expected a positive integer"));

  auto engine = whatif::what_if::open(a.job_path, a.overrides, a.from);
  if (!engine) return report_bad_input(err, "fit", engine.error());
  print_notes(err, engine->notes(), {a.overrides, a.verbose});
  return a.tries.empty() ? run_maximize(*engine, a, out, err) : run_try(*engine, a, out, err);
}

}  // namespace vramscope::cli
