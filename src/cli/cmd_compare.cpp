// vramscope compare JOB.yaml --vary key=v1,v2|1..8|pow2:1..64 [--vary ...] [--json] [--html FILE.html]
//     [--set key=value ...]
// One row per combination: the busiest rank's peak reserved and device memory, the delta to the
// first row, and whether it fits. A row that does not fit shows what it needs (planned with
// unlimited memory) and its shortfall, not the state at the out-of-memory error.
#include "cli/args.hpp"
#include "cli/axes.hpp"
#include "cli/commands.hpp"
#include "cli/messages.hpp"

#include <algorithm>

#include <vramscope/core/io.hpp>
#include <vramscope/report/whatif_report.hpp>
#include <vramscope/whatif/what_if.hpp>

namespace vramscope::cli {

int cmd_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"What-if table: plan a job under every combination of varied fields", "compare"};
  app.footer(
      "Each row says fits, tight (inside the safety margin, hardware.margin) or does not "
      "fit. Exit codes: 0 the table was printed, 2 bad input.");
  std::string job_path, from;
  std::vector<std::string> varies, overrides;
  std::string html;
  bool json = false, verbose = false;
  app.add_option("job", job_path, "job spec (YAML)");
  app.add_option("--from", from, from_option_help);
  app.add_option("--vary", varies, "key=v1,v2,... with ranges 1..8 and pow2:1..64 (repeatable)")
      ->required();
  app.add_option("--set", overrides, "override a job field for every row");
  app.add_flag("--verbose", verbose, "print every warning on its own line, with its place");
  app.add_flag("--json", json, "print the rows as JSON");
  app.add_option("--html", html,
                 "write a self-contained HTML page: each row's memory against capacity");
  int code = 0;
  if (!parse_args(app, args, out, err, code)) return code;

  auto axes = parse_axes(varies, "--vary");
  if (!axes) return report_bad_input(err, "compare", axes.error());
  auto engine = whatif::what_if::open(job_path, overrides, from);
  if (!engine) return report_bad_input(err, "compare", engine.error());
  print_notes(err, engine->notes(), {overrides, verbose});
  // Each value must be valid input on its own; what is left to fail is a row's combination,
  // which the table shows as refused, with why. When the rules refuse every row, the first
  // refusal is the answer (bad input).
  for (const auto& ax : *axes)
    for (const auto& v : ax.values)
      if (auto checked = engine->check_settings({ax.key + "=" + v}, "--vary"); !checked)
        return report_bad_input(err, "compare", checked.error());
  const auto grid = combinations(*axes);
  auto results = engine->evaluate_all(grid, "--vary", true);
  std::vector<whatif::row_outcome> rows;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i]) {
      rows.push_back(std::move(*results[i]));
      continue;
    }
    whatif::row_outcome refused;
    refused.settings = grid[i];
    refused.refused = results[i].error().message;
    rows.push_back(std::move(refused));
  }
  if (std::all_of(rows.begin(), rows.end(), [](const auto& r) { return !r.refused.empty(); }))
    return report_bad_input(err, "compare", results.front().error());
  if (!html.empty())
    if (auto written = write_file_atomic(html, report::sweep_html(report::compare_page(engine->base_job(), rows)));
        !written)
      return report_bad_input(err, "compare", written.error());
  if (json) out << report::compare_json(rows).dump(2) << "\n";
  else out << report::render_compare_text(rows);
  return 0;
}

}  // namespace vramscope::cli
