#pragma once
// Runs a helper program (nvidia-smi) and captures what it prints, without a shell and with a
// time limit: a wedged GPU can make nvidia-smi hang for minutes.

#include <chrono>
#include <string>
#include <vector>

#include <vramscope/core/result.hpp>

namespace vramscope::watch {

struct command_output {
  int exit_code = -1;      // the program's exit status; 128 + signal when killed
  std::string out;         // stdout, at most 16 MiB
  std::string err;         // stderr, at most 16 MiB
  bool timed_out = false;  // killed after the time limit
};

/// Runs argv[0] (searched in PATH when it has no slash) with argv, stdin from /dev/null.
/// Requires: argv is not empty. Fails only when the program cannot be started:
/// "<argv[0]>: not found" or the system's reason.
result<command_output> run_command(const std::vector<std::string>& argv,
                                   std::chrono::milliseconds timeout);

}  // namespace vramscope::watch
