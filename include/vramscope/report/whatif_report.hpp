#pragma once
// The renderings of the what-if engine's results (whatif/): the text and JSON of `compare` and
// `fit`, and their pages (report::sweep_page, drawn by sweep_html). Pure functions of the rows.
// All JSON figures are integers in bytes; shares are fractions.

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <vramscope/job/job_spec.hpp>
#include <vramscope/report/sweep_report.hpp>
#include <vramscope/whatif/fit_search.hpp>
#include <vramscope/whatif/what_if.hpp>

namespace vramscope::report {

/// The job in one line, "llama-3.1-8b on 8 x H100-80GB (79.18 GiB each), fsdp2": the heading of
/// fit's output and of the compare and fit pages.
std::string job_summary(const job::job_spec& job);

/// The header line naming the cost proxy `fit --try` ranks by.
extern const char* const cost_proxy_text;

/// compare: one row per combination with its reserved and device memory, the delta to the first
/// planned row and whether it fits, is tight or does not fit; a row that does not fit shows what
/// it needs and its shortfall, a refused row (row_outcome::refused) why the rules refuse it. The
/// rows' notes follow the table. Requires: each planned row with `need` filled.
std::string render_compare_text(const std::vector<whatif::row_outcome>& rows);
nlohmann::json compare_json(const std::vector<whatif::row_outcome>& rows);

std::string render_maximize(const job::job_spec& base, const whatif::maximize_result& r);
nlohmann::json maximize_json(const whatif::maximize_result& r);

std::string render_try(const job::job_spec& base, const whatif::try_summary& s);
nlohmann::json try_json(const whatif::try_summary& s);

/// The pages of `compare --html` and `fit --html`.
/// compare: every row in grid order.
sweep_page compare_page(const job::job_spec& base, const std::vector<whatif::row_outcome>& rows);
/// fit --maximize (or fit alone): every value planned, the largest that fits and the miss marked.
sweep_page maximize_page(const job::job_spec& base, const whatif::maximize_result& r);
/// fit --try: the fitting rows in rank order, then those that do not fit.
sweep_page try_page(const job::job_spec& base, const whatif::try_summary& s);

}  // namespace vramscope::report
