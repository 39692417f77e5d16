#pragma once
// Runs `vramscope ARGS...` in process and captures what it printed.

#include <sstream>
#include <string>
#include <vector>

#include <vramscope/cli/run.hpp>

namespace vramscope::testing {

struct cli_result {
  int code;
  std::string out;
  std::string err;
};

inline cli_result invoke(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace vramscope::testing
