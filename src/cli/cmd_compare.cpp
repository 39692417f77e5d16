// vramscope compare JOB.yaml --vary key=v1,v2 [--vary ...] [--json] [--set key=value ...]
// One row per combination: the busiest rank's peak reserved and device memory, the delta to the
// first row, and whether it fits.
#include <vramscope/predict/prediction.hpp>
#include <vramscope/report/plan_report.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/planning.hpp"

namespace vramscope::cli {

namespace {

struct axis {
  std::string key;
  std::vector<std::string> values;
};

result<axis> parse_vary(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return error_at("--vary", "expected key=value1,value2,... got \"" + text + "\"");
  axis a{text.substr(0, eq), {}};
  std::istringstream in(text.substr(eq + 1));
  for (std::string v; std::getline(in, v, ',');)
    if (!v.empty()) a.values.push_back(v);
  return a;
}

// Every combination of the axes' values, first axis slowest.
std::vector<std::vector<std::string>> combinations(const std::vector<axis>& axes) {
  std::vector<std::vector<std::string>> rows{{}};
  for (const auto& a : axes) {
    std::vector<std::vector<std::string>> next;
    for (const auto& row : rows)
      for (const auto& v : a.values) {
        auto r = row;
        r.push_back(a.key + "=" + v);
        next.push_back(std::move(r));
      }
    rows = std::move(next);
  }
  return rows;
}

struct row {
  std::vector<std::string> settings;
  bytes reserved = 0, device = 0;
  bool fits = false;
  std::string verdict;
};

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " ") + p;
  return out;
}

std::int64_t delta(bytes a, bytes b) { return static_cast<std::int64_t>(a) - static_cast<std::int64_t>(b); }

void print_table(std::ostream& out, const std::vector<row>& rows) {
  std::size_t width = 10;
  for (const auto& r : rows) width = std::max(width, join(r.settings).size());
  out << fmt::format("{:<{}}  {:>11} {:>11} {:>12}  {}\n", "settings", width, "reserved", "device",
                     "delta", "fits");
  for (const auto& r : rows)
    out << fmt::format("{:<{}}  {:>11} {:>11} {:>12}  {}\n", join(r.settings), width,
                       format_bytes(r.reserved), format_bytes(r.device),
                       &r == &rows.front() ? "-" : format_delta(delta(r.device, rows.front().device)),
                       r.fits ? "yes" : "no");
}

}  // namespace

int cmd_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"What-if table: plan a job under every combination of varied fields", "compare"};
  std::string job_path, from;
  std::vector<std::string> varies, overrides;
  bool json = false;
  app.add_option("job", job_path, "job spec (YAML)");
  app.add_option("--from", from, "import an accelerate YAML, DeepSpeed JSON or torchtitan TOML config");
  app.add_option("--vary", varies, "key=v1,v2,... (repeatable)")->required();
  app.add_option("--set", overrides, "override a job field for every row");
  app.add_flag("--json", json, "print the rows as JSON");
  int code = 0;
  if (!parse_args(app, args, out, err, code)) return code;

  std::vector<axis> axes;
  for (const auto& v : varies) {
    auto a = parse_vary(v);
    if (!a) return report_bad_input(err, "compare", a.error());
    axes.push_back(std::move(*a));
  }
  std::vector<row> rows;
  for (const auto& settings : combinations(axes)) {
    auto all = overrides;
    all.insert(all.end(), settings.begin(), settings.end());
    auto loaded = load_job_and_model(job_path, all, from);
    if (!loaded) return report_bad_input(err, "compare", loaded.error());
    auto p = predict::plan(loaded->model, loaded->job);
    if (!p) return report_bad_input(err, "compare", p.error());
    const auto& busiest = predict::busiest_rank(*p);
    rows.push_back({settings, busiest.peak.reserved, busiest.peak.device, p->fits,
                    report::verdict_line(*p)});
  }
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : rows)
      j.push_back({{"settings", r.settings}, {"reserved", r.reserved}, {"device", r.device},
                   {"delta_device", delta(r.device, rows.front().device)}, {"fits", r.fits},
                   {"verdict", r.verdict}});
    out << j.dump(2) << "\n";
  } else {
    print_table(out, rows);
  }
  return 0;
}

}  // namespace vramscope::cli
