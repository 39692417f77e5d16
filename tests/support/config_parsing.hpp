#pragma once
// Helpers of the model reader tests: a config.json text parsed (a failure is a test failure),
// the error a bad one gives, and the first line of a message.

#include <vramscope/model/config_reader.hpp>

#include <gtest/gtest.h>

#include <string>

namespace vramscope::model::testing {

inline model_spec parsed(const std::string& text) {
  auto spec = parse_config_json(text, "config.json");
  EXPECT_TRUE(spec) << spec.error().to_string();
  return spec ? *spec : model_spec{};
}

inline std::string error_of(const std::string& text) {
  auto spec = parse_config_json(text, "config.json");
  EXPECT_FALSE(spec);
  return spec ? std::string("(parsed)") : spec.error().to_string();
}

inline std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace vramscope::model::testing
