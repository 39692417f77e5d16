#pragma once
// Test support: the sample files under tests/data/observe/.

#include <vramscope/core/io.hpp>

#include <stdexcept>
#include <string>

namespace vramscope::observe::testing {

inline std::string data_path(const std::string& name) {
  return std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/observe/" + name;
}

inline std::string data(const std::string& name) {
  auto text = read_file(data_path(name));
  if (!text) throw std::runtime_error(text.error().to_string());
  return *text;
}

}  // namespace vramscope::observe::testing
