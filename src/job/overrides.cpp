#include <vramscope/job/overrides.hpp>

#include <vramscope/job/resolve.hpp>

#include <fmt/format.h>

#include "job/assign.hpp"
#include "job/field_table.hpp"

namespace vramscope::job {

namespace {

constexpr const char* override_source = "--set";

std::string_view trim_blanks(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

diagnostic at_column(std::string_view text, std::size_t column, std::string message) {
  return diagnostic{override_source, 0, static_cast<int>(column), std::move(message),
                    std::string(text)};
}

// A list may be written "a,b" or "[a, b]"; the list codec splits on commas.
detail::raw_value raw_of(std::string_view value) {
  if (value.size() >= 2 && value.front() == '[' && value.back() == ']')
    value = trim_blanks(value.substr(1, value.size() - 2));
  return detail::raw_value{std::string(value), {}, false};
}

}  // namespace

status set_field(job_spec& job, std::string_view key_eq_value) {
  const auto eq = key_eq_value.find('=');
  if (eq == std::string_view::npos)
    return at_column(key_eq_value, 1,
                     fmt::format("expected key=value, got \"{}\"", key_eq_value));
  const std::string key(trim_blanks(key_eq_value.substr(0, eq)));
  const std::string_view value = trim_blanks(key_eq_value.substr(eq + 1));
  if (detail::find_field(key) == nullptr && !detail::is_env_path(key)) {
    if (key.rfind("env.", 0) == 0)
      return at_column(key_eq_value, 1,
                       fmt::format("\"{}\" is not a valid environment variable name",
                                   key.substr(4)));
    const std::string near = did_you_mean(key, field_paths());
    return at_column(key_eq_value, 1,
                     fmt::format("unknown key \"{}\"{}", key,
                                 near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near)));
  }
  const auto value_column = key_eq_value.find_first_not_of(" \t", eq + 1);
  const std::size_t column =
      (value_column == std::string_view::npos ? key_eq_value.size() : value_column) + 1;
  if (auto err = detail::assign(job, key, raw_of(value), at_column(key_eq_value, column, "")))
    return *err;
  return ok();
}

status apply_override(job_spec& job, std::string_view key_eq_value, warnings* notes) {
  return apply_overrides(job, {std::string(key_eq_value)}, notes);
}

status apply_overrides(job_spec& job, const std::vector<std::string>& overrides,
                       warnings* notes) {
  job_spec updated = job;
  for (const auto& o : overrides)
    if (auto set = set_field(updated, o); !set) return set;
  warnings found;
  if (auto resolved = resolve_job(updated, &found); !resolved) return resolved;
  if (notes != nullptr) notes->insert(notes->end(), found.begin(), found.end());
  job = std::move(updated);
  return ok();
}

std::vector<std::string> field_paths() {
  std::vector<std::string> paths;
  for (const auto& f : detail::fields()) paths.push_back(f.path);
  return paths;
}

}  // namespace vramscope::job
