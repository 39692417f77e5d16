#pragma once
// A snapshot allocation's call stack on one line, as both snapshot renderings show it.

#include <vramscope/observe/torch_snapshot.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace vramscope::report::detail {

/// The first `limit` frames, innermost first, as "file.py:12 name", joined by `separator`; the
/// file without its folders.
inline std::string frames_line(const std::vector<observe::stack_frame>& frames, std::size_t limit,
                               std::string_view separator) {
  if (frames.empty()) return "(no call stack recorded)";
  std::string out;
  for (std::size_t i = 0; i < std::min(limit, frames.size()); ++i) {
    const auto& f = frames[i];
    const std::size_t slash = f.filename.find_last_of('/');
    const std::string file = slash == std::string::npos ? f.filename : f.filename.substr(slash + 1);
    out += fmt::format("{}{}:{} {}", i ? separator : std::string_view(), file, f.line, f.name);
  }
  return out;
}

}  // namespace vramscope::report::detail
