#pragma once
// The pages of `compare --html` and `fit --html`: what_if rows turned into report::sweep_page.

#include <vector>

#include <vramscope/job/job_spec.hpp>
#include <vramscope/report/sweep_report.hpp>

#include "cli/fit_search.hpp"
#include "cli/what_if.hpp"

namespace vramscope::cli {

/// compare: every row in grid order.
report::sweep_page compare_page(const job::job_spec& base, const std::vector<row_outcome>& rows);

/// fit --maximize (or fit alone): every value planned, the largest that fits and the miss marked.
report::sweep_page maximize_page(const job::job_spec& base, const maximize_result& r);

/// fit --try: the fitting rows in rank order, then those that do not fit.
report::sweep_page try_page(const job::job_spec& base, const try_summary& s);

}  // namespace vramscope::cli
