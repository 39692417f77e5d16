#include <vramscope/report/whatif_report.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace vramscope::report {

namespace {

sweep_row sweep_row_of(const whatif::row_outcome& r, std::string note = {}) {
  if (!r.refused.empty())
    return {whatif::settings_text(r.settings), false, false, 0, std::nullopt,
            "refused: " + r.refused,           true};
  return {whatif::settings_text(r.settings),
          r.fits,
          r.state() == predict::fit_state::tight,
          r.device,
          r.fits ? std::nullopt : r.need,
          std::move(note),
          false};
}

sweep_page sweep_page_for(const char* command, const job::job_spec& base) {
  sweep_page page;
  page.command = command;
  page.heading = job_summary(base);
  page.capacity = job::usable_capacity(base.hardware);
  page.margin = job::margin_bytes(base.hardware);
  page.notes.push_back(fmt::format("tight: fits with less headroom than the {} safety margin; {}",
                                   format_bytes(page.margin), predict::margin_reason));
  return page;
}

}  // namespace

sweep_page compare_page(const job::job_spec& base, const std::vector<whatif::row_outcome>& rows) {
  auto page = sweep_page_for("compare", base);
  std::size_t fitting = 0, tight = 0;
  std::size_t refused = 0;
  for (const auto& r : rows) {
    const bool planned = r.refused.empty();
    refused += planned ? 0u : 1u;
    fitting += planned && r.state() == predict::fit_state::fits ? 1u : 0u;
    tight += planned && r.state() == predict::fit_state::tight ? 1u : 0u;
    page.rows.push_back(sweep_row_of(r));
    for (const auto& n : r.notes)
      if (std::find(page.notes.begin(), page.notes.end(), n) == page.notes.end())
        page.notes.push_back(n);
  }
  page.found = fitting > 0;
  page.verdict = fmt::format("{} of {} rows fit", fitting, rows.size());
  if (tight > 0) page.verdict += fmt::format(", {} more are tight", tight);
  if (refused > 0) page.verdict += fmt::format(" ({} refused by the job rules)", refused);
  return page;
}

sweep_page maximize_page(const job::job_spec& base, const whatif::maximize_result& r) {
  auto page = sweep_page_for("fit", base);
  page.found = r.best.has_value();
  page.verdict = r.best_value ? fmt::format("largest {} that fits with a {} margin: {}", r.key,
                                            format_bytes(page.margin), *r.best_value)
                              : fmt::format("no value of {} fits with a {} margin", r.key,
                                            format_bytes(page.margin));
  for (const auto& row : r.tried) {
    std::string note;
    if (r.best && row.settings == r.best->settings) note = "largest that fits";
    if (r.miss && row.settings == r.miss->settings)
      note = row.state() == predict::fit_state::tight ? "smallest that is tight"
                                                      : "smallest that does not";
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
  page.verdict = fmt::format("{} of {} combinations fit with a {} margin", s.fitting.size(),
                             s.combinations, format_bytes(page.margin));
  if (!s.tight.empty()) page.verdict += fmt::format(", {} more are tight", s.tight.size());
  std::size_t rank = 0;
  for (const auto& r : s.fitting)
    page.rows.push_back(sweep_row_of(
        r, fmt::format("#{}, recompute {:.0f} %, network {} per token", ++rank, r.recompute * 100,
                       format_bytes(static_cast<bytes>(r.network_per_token + 0.5)))));
  for (const auto& r : s.tight) page.rows.push_back(sweep_row_of(r, "tight"));
  for (const auto& r : s.missing)
    page.rows.push_back(sweep_row_of(r, s.closest && r.settings == s.closest->settings ? "closest miss" : ""));
  page.notes.push_back(cost_proxy_text);
  for (const auto& r : s.invalid)
    page.rows.push_back({whatif::settings_text(r.settings), false, false, 0, std::nullopt,
                         "refused: " + r.why.message, true});
  return page;
}

}  // namespace vramscope::report
