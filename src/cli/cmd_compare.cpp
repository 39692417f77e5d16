// vramscope compare JOB.yaml --vary key=v1,v2|1..8|pow2:1..64 [--vary ...] [--json] [--html FILE.html]
//     [--set key=value ...]
// One row per combination: the busiest rank's peak reserved and device memory, the delta to the
// first row, and whether it fits. A row that does not fit shows what it needs (planned with
// unlimited memory) and its shortfall, not the state at the out-of-memory error.
#include "cli/args.hpp"
#include "cli/axes.hpp"
#include "cli/commands.hpp"
#include "cli/messages.hpp"

#include <vramscope/core/io.hpp>
#include <vramscope/report/whatif_report.hpp>
#include <vramscope/whatif/what_if.hpp>

namespace vramscope::cli {

int cmd_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"What-if table: plan a job under every combination of varied fields", "compare"};
  std::string job_path, from;
  std::vector<std::string> varies, overrides;
  std::string html;
  bool json = false;
  app.add_option("job", job_path, "job spec (YAML)");
  app.add_option("--from", from, from_option_help);
  app.add_option("--vary", varies, "key=v1,v2,... with ranges 1..8 and pow2:1..64 (repeatable)")
      ->required();
  app.add_option("--set", overrides, "override a job field for every row");
  app.add_flag("--json", json, "print the rows as JSON");
  app.add_option("--html", html,
                 "write a self-contained HTML page: each row's memory against capacity");
  int code = 0;
  if (!parse_args(app, args, out, err, code)) return code;

  auto axes = parse_axes(varies, "--vary");
  if (!axes) return report_bad_input(err, "compare", axes.error());
  auto engine = whatif::what_if::open(job_path, overrides, from);
  if (!engine) return report_bad_input(err, "compare", engine.error());
  print_notes(err, engine->notes());
  std::vector<whatif::row_outcome> rows;
  for (auto& r : engine->evaluate_all(combinations(*axes), "--vary", true)) {
    if (!r) return report_bad_input(err, "compare", r.error());
    rows.push_back(std::move(*r));
  }
  if (!html.empty())
    if (auto written = write_file_atomic(html, report::sweep_html(report::compare_page(engine->base_job(), rows)));
        !written)
      return report_bad_input(err, "compare", written.error());
  if (json) out << report::compare_json(rows).dump(2) << "\n";
  else out << report::render_compare_text(rows);
  return 0;
}

}  // namespace vramscope::cli
