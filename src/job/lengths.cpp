#include <vramscope/job/lengths.hpp>

#include <vramscope/core/io.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <string_view>

#include "job/validation.hpp"

namespace vramscope::job {

// Named, not anonymous: the module builds as one translation unit (VRAMSCOPE_UNITY_BUILD).
namespace lengths_detail {

constexpr std::uint64_t longest_length = 1 << 24;  // training.seq_len's own limit
constexpr bytes max_length_file = 64_MiB;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::optional<std::uint64_t> parse_length(std::string_view s) {
  s = trim(s);
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1 || v > longest_length)
    return std::nullopt;
  return v;
}

std::optional<double> parse_weight(std::string_view s) {
  s = trim(s);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || v < 0)
    return std::nullopt;
  return v;
}

// Distinct lengths in ascending order, weights of a repeated length added, zero weights dropped.
result<length_distribution> from_weights(const std::map<std::uint64_t, double>& w,
                                         diagnostic where) {
  length_distribution d;
  for (const auto& [length, weight] : w)
    if (weight > 0) d.weighted.push_back({length, weight});
  if (d.weighted.empty()) {
    where.message += "no length has a weight above 0";
    return where;
  }
  return d;
}

result<length_distribution> buckets(const job_spec& job) {
  const auto& items = job.training.length_buckets;
  const std::string path = "training.length_buckets";
  if (items.empty())
    return detail::field_error(job, path, "buckets lengths need at least one LENGTH:WEIGHT item");
  std::map<std::uint64_t, double> w;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string_view item = items[i];
    const auto colon = item.find(':');
    const auto length = parse_length(item.substr(0, colon));
    const auto weight = colon == std::string_view::npos ? std::nullopt
                                                         : parse_weight(item.substr(colon + 1));
    if (!length || !weight)
      return detail::field_error(
          job, path,
          fmt::format("item {} \"{}\": expected LENGTH:WEIGHT, a length from 1 to {} and a "
                      "weight of at least 0",
                      i + 1, item, longest_length));
    w[*length] += *weight;
  }
  auto where = detail::where_set(job, path);
  where.message = path + ": ";
  return from_weights(w, where);
}

diagnostic at_line(const std::string& file, int line, std::string_view text, std::string message) {
  return diagnostic{file, line, 0, std::move(message), std::string(trim(text))};
}

result<length_distribution> histogram_csv(const std::string& text, const std::string& file) {
  std::map<std::uint64_t, double> w;
  int line_no = 0;
  bool first = true;
  for (std::size_t at = 0; at <= text.size();) {
    const auto end = std::min(text.find('\n', at), text.size());
    const std::string_view line(text.data() + at, end - at);
    at = end + 1;
    ++line_no;
    const auto content = trim(line);
    if (content.empty() || content.front() == '#') continue;
    const auto comma = content.find(',');
    const auto length = comma == std::string_view::npos ? std::nullopt
                                                         : parse_length(content.substr(0, comma));
    const auto count = comma == std::string_view::npos ? std::nullopt
                                                        : parse_weight(content.substr(comma + 1));
    const bool header = first && (!length || !count) &&
                        content.find_first_of("0123456789") == std::string_view::npos;
    first = false;
    if (header) continue;
    if (!length || !count)
      return at_line(file, line_no, line,
                     fmt::format("expected length,count: a length from 1 to {} and a count of "
                                 "at least 0",
                                 longest_length));
    w[*length] += *count;
  }
  return from_weights(w, diagnostic{file, 0, 0, "", ""});
}

// The line of byte `offset` in `text`, 1-based.
int line_of(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

result<length_distribution> histogram_json(const std::string& text, const std::string& file) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return diagnostic{file, line_of(text, e.byte > 0 ? e.byte - 1 : 0), 0,
                      "expected JSON: an array of [length, count] pairs", ""};
  }
  if (!doc.is_array())
    return diagnostic{file, 1, 0, "expected an array of [length, count] pairs or of "
                                  "{\"length\": L, \"count\": C} objects", ""};
  std::map<std::uint64_t, double> w;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const auto& item = doc[i];
    const nlohmann::json* l = nullptr;
    const nlohmann::json* c = nullptr;
    if (item.is_array() && item.size() == 2) {
      l = &item[0];
      c = &item[1];
    } else if (item.is_object() && item.contains("length") && item.contains("count")) {
      l = &item["length"];
      c = &item["count"];
    }
    const bool ok = l && c && l->is_number_unsigned() && l->get<std::uint64_t>() >= 1 &&
                    l->get<std::uint64_t>() <= longest_length && c->is_number() &&
                    c->get<double>() >= 0 && std::isfinite(c->get<double>());
    if (!ok)
      return diagnostic{file, 0, 0,
                        fmt::format("item {} ({}): expected [length, count] or {{\"length\": L, "
                                    "\"count\": C}}, a length from 1 to {} and a count of at "
                                    "least 0",
                                    i + 1, item.dump(), longest_length),
                        ""};
    w[l->get<std::uint64_t>()] += c->get<double>();
  }
  return from_weights(w, diagnostic{file, 0, 0, "", ""});
}

result<length_distribution> histogram(const job_spec& job) {
  const auto& file = job.training.length_file;
  if (file.empty())
    return detail::field_error(job, "training.length_file",
                               "histogram lengths need a file of length,count rows (CSV or JSON)");
  auto text = read_file(file, max_length_file);
  if (!text) return text.error();
  const auto first = text->find_first_not_of(" \t\r\n");
  const bool json = first != std::string::npos && ((*text)[first] == '[' || (*text)[first] == '{');
  return json ? histogram_json(*text, file) : histogram_csv(*text, file);
}

}  // namespace lengths_detail

result<length_distribution> length_distribution_of(const job_spec& job) {
  const auto& t = job.training;
  if (t.lengths == "uniform") {
    if (t.seq_len_min < 1 || t.seq_len_min > t.seq_len)
      return detail::field_error(
          job, "training.seq_len_min",
          fmt::format("uniform lengths need the shortest length, from 1 to training.seq_len "
                      "({}); got {}",
                      t.seq_len, t.seq_len_min));
    length_distribution d;
    d.lo = t.seq_len_min;
    d.hi = t.seq_len;
    return d;
  }
  if (t.lengths == "buckets") return lengths_detail::buckets(job);
  if (t.lengths == "histogram") return lengths_detail::histogram(job);
  length_distribution d;
  d.weighted.push_back({t.seq_len, 1});
  return d;
}

namespace lengths_detail {

// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014).
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__extension__ typedef unsigned __int128 uint128;

}  // namespace lengths_detail

std::vector<std::uint64_t> draw_lengths(const length_distribution& d, int steps,
                                        std::uint64_t seed) {
  std::vector<std::uint64_t> out;
  out.reserve(static_cast<std::size_t>(std::max(0, steps)));
  std::vector<double> cumulative;
  double total = 0;
  for (const auto& w : d.weighted) cumulative.push_back(total += w.weight);
  std::uint64_t state = seed;
  for (int i = 0; i < steps; ++i) {
    const std::uint64_t x = lengths_detail::splitmix64(state);
    if (d.weighted.empty()) {
      const auto count = static_cast<lengths_detail::uint128>(d.hi - d.lo + 1);
      out.push_back(d.lo + static_cast<std::uint64_t>((x * count) >> 64));
      continue;
    }
    const double r = static_cast<double>(x >> 11) * 0x1.0p-53 * total;
    const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), r);
    const auto k = std::min<std::size_t>(static_cast<std::size_t>(it - cumulative.begin()),
                                         d.weighted.size() - 1);
    out.push_back(d.weighted[k].length);
  }
  return out;
}

std::string describe(const length_distribution& d, const job_spec& job) {
  const auto& t = job.training;
  if (d.weighted.empty()) return fmt::format("uniform {}..{}", d.lo, d.hi);
  if (t.lengths == "buckets")
    return fmt::format("{} bucket{} {}..{}", d.weighted.size(), d.weighted.size() == 1 ? "" : "s",
                       d.shortest(), d.longest());
  if (t.lengths == "histogram")
    return fmt::format("histogram of {} length{} {}..{} ({})", d.weighted.size(),
                       d.weighted.size() == 1 ? "" : "s", d.shortest(), d.longest(),
                       t.length_file);
  return fmt::format("fixed {}", t.seq_len);
}

}  // namespace vramscope::job
