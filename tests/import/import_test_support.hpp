#pragma once
// Helpers shared by the importer tests: the sample files under tests/data/job/ and lookups in
// an import's notes.

#include <string>

#include <vramscope/import/importers.hpp>

#include <gtest/gtest.h>

namespace vramscope::job::testing {

inline std::string sample(const std::string& name) {
  return std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/job/" + name;
}

inline imported_job import_ok(const std::string& name) {
  auto imported = import_config(sample(name));
  if (!imported) ADD_FAILURE() << imported.error().to_string();
  return imported ? *imported : imported_job{};
}

/// The note (or no-effect entry) whose message contains `text`, printed with its location;
/// "" when there is none.
inline std::string find_note(const warnings& notes, const std::string& text) {
  for (const auto& n : notes)
    if (n.message.find(text) != std::string::npos) return n.to_string();
  return "";
}

}  // namespace vramscope::job::testing
