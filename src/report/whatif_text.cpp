#include <vramscope/report/whatif_report.hpp>

#include <vramscope/job/job_names.hpp>
#include <vramscope/report/plan_report.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace vramscope::report {

const char* const cost_proxy_text =
    "cost proxy: recompute = share of a step's FLOPs spent re-running the forward pass for "
    "activation checkpointing (none 0 %, full 33 %, selective 33 %/checkpoint_every, op 17 %); "
    "network = bytes one rank sends per step in its collectives (docs/fit.md); "
    "host = host memory of offloaded state per rank";

std::string job_summary(const job::job_spec& job) {
  return fmt::format("{} on {} x {} ({} each), {}", job.model, job.world_size(), job.hardware.gpu,
                     format_bytes(job::usable_capacity(job.hardware)), job::name_of(job.parallel.kind));
}

namespace {

std::string header(const job::job_spec& job) { return "fit: " + job_summary(job) + "\n"; }

std::string headroom_text(const whatif::row_outcome& r) {
  const auto h = r.headroom();
  return h >= 0 ? format_bytes(static_cast<bytes>(h)) : "-" + format_bytes(static_cast<bytes>(-h));
}

std::string miss_line(const whatif::row_outcome& r) {
  return fmt::format("{} needs {} of {} (short by {})", whatif::settings_text(r.settings), format_bytes(*r.need),
                     format_bytes(r.capacity), format_bytes(*r.need - r.capacity));
}

nlohmann::json row_json(const whatif::row_outcome& r) {
  nlohmann::json j{{"settings", r.settings}, {"fits", r.fits}, {"reserved", r.reserved},
                   {"device", r.device}, {"capacity", r.capacity}, {"recompute", r.recompute},
                   {"network_bytes", r.network}, {"host_memory", r.host}};
  if (r.need) {
    j["need"] = *r.need;
    j["headroom"] = r.headroom();
  }
  return j;
}

}  // namespace

std::string render_maximize(const job::job_spec& base, const whatif::maximize_result& r) {
  std::string out = header(base);
  if (r.best) {
    out += fmt::format("largest {} that fits: {}\n", r.key, *r.best_value);
    out += fmt::format("  {}: device {}, headroom {}\n", whatif::settings_text(r.best->settings),
                       format_bytes(r.best->device), headroom_text(*r.best));
    if (r.miss) out += "  " + miss_line(*r.miss) + "\n";
  } else {
    out += fmt::format("no value of {} fits", r.key);
    out += r.miss ? ": the closest miss is " + miss_line(*r.miss) + "\n" : "\n";
  }
  if (!r.stopped.empty()) out += "  stopped: " + r.stopped + "\n";
  out += r.bisected ? fmt::format("searched {} plans: doubling from 1, then bisection (assumes "
                                  "memory grows with {}; docs/fit.md)\n", r.evaluated, r.key)
                    : fmt::format("searched {} plans: every value from 1 to {} ({} is not known "
                                  "to be monotone)\n", r.evaluated, r.up_to, r.key);
  return out;
}

nlohmann::json maximize_json(const whatif::maximize_result& r) {
  nlohmann::json j{{"key", r.key}, {"search", r.bisected ? "bisection" : "scan"},
                   {"up_to", r.up_to}, {"plans", r.evaluated}};
  j["largest"] = r.best_value ? nlohmann::json(*r.best_value) : nlohmann::json(nullptr);
  j["fits"] = r.best ? row_json(*r.best) : nlohmann::json(nullptr);
  j["miss"] = r.miss ? row_json(*r.miss) : nlohmann::json(nullptr);
  if (!r.stopped.empty()) j["stopped"] = r.stopped;
  return j;
}

std::string render_try(const job::job_spec& base, const whatif::try_summary& s) {
  std::string out = header(base);
  out += fmt::format("{} of {} combinations fit", s.fitting.size(), s.combinations);
  if (!s.invalid.empty()) out += fmt::format(" ({} refused by the job rules)", s.invalid.size());
  out += "; ranked by cost, then by headroom\n";
  out += std::string(cost_proxy_text) + "\n";
  if (s.fitting.empty()) {
    out += s.closest ? "nothing fits: the closest miss is " + miss_line(*s.closest) + "\n"
                     : "nothing fits: no combination is valid; the first refusal: " +
                           (s.invalid.empty() ? std::string("none") : s.invalid.front().to_string()) +
                           "\n";
    return out;
  }
  std::size_t width = 8;
  for (const auto& r : s.fitting) width = std::max(width, whatif::settings_text(r.settings).size());
  out += fmt::format("{:>4}  {:<{}}  {:>11} {:>11} {:>9} {:>11} {:>11}\n", "#", "settings", width,
                     "device", "headroom", "recompute", "network", "host");
  std::size_t n = 0;
  for (const auto& r : s.fitting)
    out += fmt::format("{:>4}  {:<{}}  {:>11} {:>11} {:>8.0f}% {:>11} {:>11}\n", ++n,
                       whatif::settings_text(r.settings), width, format_bytes(r.device), headroom_text(r),
                       r.recompute * 100, r.network > 0 ? format_bytes(r.network) : "-",
                       r.host > 0 ? format_bytes(r.host) : "-");
  return out;
}

nlohmann::json try_json(const whatif::try_summary& s) {
  nlohmann::json j{{"combinations", s.combinations}, {"cost_proxy", cost_proxy_text},
                   {"ranked_by", {"recompute", "network_bytes", "host_memory", "headroom"}}};
  j["fits"] = nlohmann::json::array();
  for (const auto& r : s.fitting) j["fits"].push_back(row_json(r));
  j["does_not_fit"] = s.missing.size();
  j["refused"] = nlohmann::json::array();
  for (const auto& d : s.invalid) j["refused"].push_back(d.to_string());
  j["closest_miss"] = s.closest ? row_json(*s.closest) : nlohmann::json(nullptr);
  return j;
}

// ---- compare ----

namespace {

std::int64_t compare_delta(bytes a, bytes b) {
  return static_cast<std::int64_t>(a) - static_cast<std::int64_t>(b);
}

// What a row shows: as planned when it fits, what it needs when it does not.
bytes shown_device(const whatif::row_outcome& r) { return r.fits ? r.device : *r.need; }

std::string fits_text(const whatif::row_outcome& r) {
  return r.fits ? "yes" : "no, short by " + format_bytes(*r.need - r.capacity);
}

}  // namespace

std::string render_compare_text(const std::vector<whatif::row_outcome>& rows) {
  std::string out;
  std::size_t width = 10;
  for (const auto& r : rows) width = std::max(width, whatif::settings_text(r.settings).size());
  out += fmt::format("{:<{}}  {:>11} {:>11} {:>12}  {}\n", "settings", width, "reserved",
                     "device", "delta", "fits");
  const bytes first = shown_device(rows.front());
  for (const auto& r : rows)
    out += fmt::format("{:<{}}  {:>11} {:>11} {:>12}  {}\n", whatif::settings_text(r.settings),
                       width, r.fits ? format_bytes(r.reserved) : "-",
                       format_bytes(shown_device(r)),
                       &r == &rows.front() ? "-" : format_delta(compare_delta(shown_device(r), first)),
                       fits_text(r));
  if (std::any_of(rows.begin(), rows.end(), [](const auto& r) { return !r.fits; }))
    out += "rows that do not fit show the device memory they need (planned with unlimited "
           "memory)\n";
  return out;
}

nlohmann::json compare_json(const std::vector<whatif::row_outcome>& rows) {
  nlohmann::json j = nlohmann::json::array();
  const bytes first = shown_device(rows.front());
  for (const auto& r : rows) {
    nlohmann::json row{{"settings", r.settings}, {"reserved", r.reserved},
                       {"device", shown_device(r)}, {"need", *r.need},
                       {"delta_device", compare_delta(shown_device(r), first)}, {"fits", r.fits},
                       {"verdict", verdict_line(r.verdict)}};
    if (!r.fits) {
      row["shortfall"] = *r.need - r.capacity;
      row["device_at_oom"] = r.device;
    }
    j.push_back(std::move(row));
  }
  return j;
}

}  // namespace vramscope::report
