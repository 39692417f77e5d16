#pragma once
// Test support: the sample files under tests/data/observe/.

#include <vramscope/core/io.hpp>
#include <vramscope/observe/oom_report.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vramscope::observe::testing {

inline std::string data_path(const std::string& name) {
  return std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/observe/" + name;
}

inline std::string data(const std::string& name) {
  auto text = read_file(data_path(name));
  if (!text) throw std::runtime_error(text.error().to_string());
  return *text;
}

// `value` units as whole bytes, rounded as the readers round a printed figure.
inline bytes approx(double value, bytes unit) {
  return static_cast<bytes>(std::llround(value * static_cast<double>(unit)));
}

// The out-of-memory reports of a pasted log named app.log.
inline std::vector<oom_report> find(const std::string& text, warnings& w) {
  return find_oom_reports(text, "app.log", w);
}
inline std::vector<oom_report> find(const std::string& text, warnings* w = nullptr) {
  warnings local;
  return find(text, w ? *w : local);
}

// Whether a warning's text holds `part`.
inline bool any_warning_has(const warnings& w, std::string_view part) {
  for (const auto& d : w)
    if (d.to_string().find(part) != std::string::npos) return true;
  return false;
}

}  // namespace vramscope::observe::testing
