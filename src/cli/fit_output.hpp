#pragma once
// Text and JSON of `vramscope fit`. Pure functions of the search results. All JSON figures are
// integers in bytes; shares are fractions.

#include <string>

#include <nlohmann/json.hpp>

#include <vramscope/job/job_spec.hpp>

#include "cli/fit_search.hpp"

namespace vramscope::cli {

/// The job in one line, "llama-3.1-8b on 8 x H100-80GB (79.18 GiB each), fsdp2": the heading of
/// fit's output and of the compare and fit pages.
std::string job_summary(const job::job_spec& job);

/// The header line naming the cost proxy `fit --try` ranks by.
extern const char* const cost_proxy_text;

std::string render_maximize(const job::job_spec& base, const maximize_result& r);
nlohmann::json maximize_json(const maximize_result& r);

std::string render_try(const job::job_spec& base, const try_summary& s);
nlohmann::json try_json(const try_summary& s);

}  // namespace vramscope::cli
