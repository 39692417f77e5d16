#include <vramscope/report/whatif_report.hpp>

#include <fmt/format.h>

namespace vramscope::report {

namespace {

sweep_row sweep_row_of(const whatif::row_outcome& r, std::string note = {}) {
  return {whatif::settings_text(r.settings), r.fits, r.device, r.fits ? std::nullopt : r.need,
          std::move(note)};
}

sweep_page sweep_page_for(const char* command, const job::job_spec& base) {
  sweep_page page;
  page.command = command;
  page.heading = job_summary(base);
  page.capacity = job::usable_capacity(base.hardware);
  return page;
}

}  // namespace

sweep_page compare_page(const job::job_spec& base, const std::vector<whatif::row_outcome>& rows) {
  auto page = sweep_page_for("compare", base);
  std::size_t fitting = 0;
  for (const auto& r : rows) {
    fitting += r.fits ? 1 : 0;
    page.rows.push_back(sweep_row_of(r));
  }
  page.found = fitting > 0;
  page.verdict = fmt::format("{} of {} rows fit", fitting, rows.size());
  return page;
}

sweep_page maximize_page(const job::job_spec& base, const whatif::maximize_result& r) {
  auto page = sweep_page_for("fit", base);
  page.found = r.best.has_value();
  page.verdict = r.best_value ? fmt::format("largest {} that fits: {}", r.key, *r.best_value)
                              : fmt::format("no value of {} fits", r.key);
  for (const auto& row : r.tried) {
    std::string note;
    if (r.best && row.settings == r.best->settings) note = "largest that fits";
    if (r.miss && row.settings == r.miss->settings) note = "smallest that does not";
    page.rows.push_back(sweep_row_of(row, note));
  }
  page.notes.push_back(r.bisected
                           ? fmt::format("{} plans: doubling from 1, then bisection (memory grows "
                                         "with {}; docs/fit.md)", r.evaluated, r.key)
                           : fmt::format("{} plans: every value from 1 to {}", r.evaluated, r.up_to));
  if (!r.stopped.empty()) page.notes.push_back("stopped: " + r.stopped);
  return page;
}

sweep_page try_page(const job::job_spec& base, const whatif::try_summary& s) {
  auto page = sweep_page_for("fit", base);
  page.found = !s.fitting.empty();
  page.verdict = fmt::format("{} of {} combinations fit", s.fitting.size(), s.combinations);
  std::size_t rank = 0;
  for (const auto& r : s.fitting)
    page.rows.push_back(sweep_row_of(r, fmt::format("#{}, recompute {:.0f} %, network {}", ++rank,
                                              r.recompute * 100, format_bytes(r.network))));
  for (const auto& r : s.missing)
    page.rows.push_back(sweep_row_of(r, s.closest && r.settings == s.closest->settings ? "closest miss" : ""));
  page.notes.push_back(cost_proxy_text);
  if (!s.invalid.empty())
    page.notes.push_back(fmt::format("{} combinations refused by the job rules; the first: {}",
                                     s.invalid.size(), s.invalid.front().to_string()));
  return page;
}

}  // namespace vramscope::report
