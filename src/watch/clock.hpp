#pragma once
// Wall-clock time for samples and trace files.

#include <chrono>
#include <cstdint>

namespace vramscope::watch {

/// Milliseconds since the Unix epoch.
inline std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace vramscope::watch
