// vramscope compare JOB.yaml --vary key=v1,v2|1..8|pow2:1..64 [--vary ...] [--json] [--html FILE.html]
//     [--set key=value ...]
// One row per combination: the busiest rank's peak reserved and device memory, the delta to the
// first row, and whether it fits. A row that does not fit shows what it needs (planned with
// unlimited memory) and its shortfall, not the state at the out-of-memory error.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/args.hpp"
#include "cli/axes.hpp"
#include "cli/commands.hpp"
#include "cli/job_loading.hpp"
#include "cli/sweep_page.hpp"
#include "cli/what_if.hpp"

#include <vramscope/core/io.hpp>

namespace vramscope::cli {

namespace {

std::int64_t delta(bytes a, bytes b) { return static_cast<std::int64_t>(a) - static_cast<std::int64_t>(b); }

// What a row shows: as planned when it fits, what it needs when it does not.
bytes shown_device(const row_outcome& r) { return r.fits ? r.device : *r.need; }

std::string fits_text(const row_outcome& r) {
  return r.fits ? "yes" : "no, short by " + format_bytes(*r.need - r.capacity);
}

void print_table(std::ostream& out, const std::vector<row_outcome>& rows) {
  std::size_t width = 10;
  for (const auto& r : rows) width = std::max(width, settings_text(r.settings).size());
  out << fmt::format("{:<{}}  {:>11} {:>11} {:>12}  {}\n", "settings", width, "reserved",
                     "device", "delta", "fits");
  const bytes first = shown_device(rows.front());
  for (const auto& r : rows)
    out << fmt::format("{:<{}}  {:>11} {:>11} {:>12}  {}\n", settings_text(r.settings), width,
                       r.fits ? format_bytes(r.reserved) : "-", format_bytes(shown_device(r)),
                       &r == &rows.front() ? "-" : format_delta(delta(shown_device(r), first)),
                       fits_text(r));
  if (std::any_of(rows.begin(), rows.end(), [](const auto& r) { return !r.fits; }))
    out << "rows that do not fit show the device memory they need (planned with unlimited "
           "memory)\n";
}

nlohmann::json rows_json(const std::vector<row_outcome>& rows) {
  nlohmann::json j = nlohmann::json::array();
  const bytes first = shown_device(rows.front());
  for (const auto& r : rows) {
    nlohmann::json row{{"settings", r.settings}, {"reserved", r.reserved},
                       {"device", shown_device(r)}, {"need", *r.need},
                       {"delta_device", delta(shown_device(r), first)}, {"fits", r.fits},
                       {"verdict", r.verdict}};
    if (!r.fits) {
      row["shortfall"] = *r.need - r.capacity;
      row["device_at_oom"] = r.device;
    }
    j.push_back(std::move(row));
  }
  return j;
}

}  // namespace

int cmd_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"What-if table: plan a job under every combination of varied fields", "compare"};
  std::string job_path, from;
  std::vector<std::string> varies, overrides;
  std::string html;
  bool json = false;
  app.add_option("job", job_path, "job spec (YAML)");
  app.add_option("--from", from, "import an accelerate YAML, DeepSpeed JSON, torchtitan TOML or torchtune YAML config");
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
  auto engine = what_if::open(job_path, overrides, from);
  if (!engine) return report_bad_input(err, "compare", engine.error());
  print_notes(err, engine->notes());
  std::vector<row_outcome> rows;
  for (auto& r : engine->evaluate_all(combinations(*axes), "--vary", true)) {
    if (!r) return report_bad_input(err, "compare", r.error());
    rows.push_back(std::move(*r));
  }
  if (!html.empty())
    if (auto written = write_file_atomic(html, report::sweep_html(compare_page(engine->base_job(), rows)));
        !written)
      return report_bad_input(err, "compare", written.error());
  if (json) out << rows_json(rows).dump(2) << "\n";
  else print_table(out, rows);
  return 0;
}

}  // namespace vramscope::cli
