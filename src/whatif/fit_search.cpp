#include <vramscope/whatif/fit_search.hpp>

#include <vramscope/job/job_writer.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <tuple>

namespace vramscope::whatif {

namespace {

constexpr const char* option = "--maximize";

// The field's current value, which also tells an integer field from any other.
result<std::int64_t> current_value(const job::job_spec& job, const std::string& key) {
  const nlohmann::json j = job::to_json(job);
  const nlohmann::json* at = &j;
  std::size_t start = 0;
  while (at != nullptr) {
    const auto dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? dot : dot - start);
    at = at->is_object() && at->contains(part) ? &(*at)[part] : nullptr;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (at == nullptr) return error_at(option, fmt::format("unknown key \"{}\"", key));
  if (!at->is_number_integer())
    return error_at(option, fmt::format("{} is not an integer field (it holds {})", key,
                                        at->dump()));
  return at->get<std::int64_t>();
}

// Plans one value, remembering each so that no value is planned twice.
class prober {
 public:
  prober(const what_if& engine, std::string key) : engine_(engine), key_(std::move(key)) {}

  // The row, or the diagnostic that makes this value invalid for the job.
  const result<row_outcome>& at(std::int64_t v) {
    auto it = seen_.find(v);
    if (it == seen_.end())
      it = seen_.emplace(v, engine_.evaluate({fmt::format("{}={}", key_, v)}, option, false)).first;
    return it->second;
  }
  [[nodiscard]] std::size_t count() const { return seen_.size(); }
  [[nodiscard]] const std::map<std::int64_t, result<row_outcome>>& seen() const { return seen_; }

 private:
  const what_if& engine_;
  std::string key_;
  std::map<std::int64_t, result<row_outcome>> seen_;
};

// Fits outside the safety margin: the search maximizes under it.
bool fits(const result<row_outcome>& r) { return r && r->state() == predict::fit_state::fits; }

void bisect(prober& probe, maximize_result& out) {
  // Gallop: 1, 2, 4, ... until a value does not fit, is invalid, or passes up_to.
  std::int64_t lo = 0, hi = 0;
  for (std::int64_t v = 1;; v = std::min(v * 2, out.up_to)) {
    if (!fits(probe.at(v))) { hi = v; break; }
    lo = v;
    if (v == out.up_to) break;
  }
  // Bisect between the last fit and the first value that does not.
  while (hi > lo + 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(probe.at(mid)) ? lo : hi) = mid;
  }
  if (lo > 0) out.best_value = lo;
  if (hi > 0) {
    const auto& r = probe.at(hi);
    if (r) out.miss = *r;
    else out.stopped = r.error().to_string();
  } else {
    out.stopped = fmt::format("{} fits up to the search limit {} (raise it with --up-to)",
                              out.key, out.up_to);
  }
}

void scan(prober& probe, maximize_result& out) {
  for (std::int64_t v = 1; v <= out.up_to; ++v)
    if (fits(probe.at(v))) out.best_value = v;
  const std::int64_t first_above = out.best_value.value_or(0) + 1;
  for (std::int64_t v = first_above; v <= out.up_to; ++v)
    if (const auto& r = probe.at(v); r) {
      out.miss = *r;
      return;
    }
  out.stopped = first_above > out.up_to
                    ? fmt::format("{} fits up to the search limit {} (raise it with --up-to)",
                                  out.key, out.up_to)
                    : fmt::format("no value of {} from {} to {} is valid for this job", out.key,
                                  first_above, out.up_to);
}

}  // namespace

const std::vector<std::string>& monotone_keys() {
  static const std::vector<std::string> keys{"training.micro_batch", "training.seq_len",
                                             "lora.rank", "lora.virtual_tokens"};
  return keys;
}

result<maximize_result> maximize(const what_if& engine, const std::string& key,
                                 std::int64_t up_to) {
  if (auto v = current_value(engine.base_job(), key); !v) return v.error();
  if (auto checked = engine.check_settings({key + "=1"}, option); !checked) return checked.error();
  maximize_result out;
  out.key = key;
  out.up_to = up_to;
  const auto& monotone = monotone_keys();
  out.bisected = std::find(monotone.begin(), monotone.end(), key) != monotone.end();
  prober probe(engine, key);
  if (out.bisected) bisect(probe, out);
  else scan(probe, out);
  if (out.best_value) out.best = *probe.at(*out.best_value);
  out.evaluated = probe.count();
  if (out.miss) {
    if (auto filled = engine.fill_need(*out.miss, option); !filled) return filled.error();
    ++out.evaluated;
  }
  for (const auto& [value, row] : probe.seen()) {
    if (!row) continue;
    out.tried.push_back(out.miss && row->settings == out.miss->settings ? *out.miss : *row);
  }
  return out;
}

try_summary summarize(std::vector<result<row_outcome>> rows,
                      const std::vector<std::vector<std::string>>& grid) {
  try_summary s;
  s.combinations = rows.size();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    if (!r)
      s.invalid.push_back({i < grid.size() ? grid[i] : std::vector<std::string>{}, r.error()});
    else if (r->state() == predict::fit_state::fits)
      s.fitting.push_back(std::move(*r));
    else if (r->state() == predict::fit_state::tight)
      s.tight.push_back(std::move(*r));
    else s.missing.push_back(std::move(*r));
  }
  const auto cheaper = [](const auto& a, const auto& b) {
    return std::make_tuple(a.recompute, a.network_per_token, a.host, -a.headroom()) <
           std::make_tuple(b.recompute, b.network_per_token, b.host, -b.headroom());
  };
  std::stable_sort(s.fitting.begin(), s.fitting.end(), cheaper);
  std::stable_sort(s.tight.begin(), s.tight.end(), cheaper);
  return s;
}

status fill_closest_miss(const what_if& engine, try_summary& s) {
  for (auto& m : s.missing) {
    if (auto filled = engine.fill_need(m, "--try"); !filled) return filled;
    if (!s.closest || *m.need < *s.closest->need) s.closest = m;
  }
  return ok();
}

}  // namespace vramscope::whatif
