#pragma once
// Version rules: torch, CUDA, jaxlib and transformers versions decide what a job allocates.

#include <string>

namespace vramscope {

/// Parses a "major.minor.patch" version into one comparable number (each part clamped to 999);
/// missing or unparsable parts count as 0: version_number("2.5") < version_number("2.10.1").
int version_number(const std::string& version);

}  // namespace vramscope
