// The vramscope command. Everything lives in the cli library; see vramscope::cli::run.
#include <vramscope/cli/run.hpp>
#include <vramscope/core/io.hpp>

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // Standard output through a buffer that keeps the first write error, so that output lost to
  // a full disk or a closed pipe is never reported as success.
  vramscope::fd_output_buffer stdout_buffer(STDOUT_FILENO);
  std::streambuf* const previous = std::cout.rdbuf(&stdout_buffer);
  int code = vramscope::cli::run(args, std::cout, std::cerr);
  std::cout.flush();
  std::cout.rdbuf(previous);
  if (const int error = stdout_buffer.error(); error != 0) {
    if (error == EPIPE) {
      // The reader is gone: end as a write to a closed pipe conventionally does (status 141
      // in a shell), also when SIGPIPE was ignored by whoever started us.
      std::signal(SIGPIPE, SIG_DFL);
      std::raise(SIGPIPE);
      return 128 + SIGPIPE;
    }
    std::cerr << "vramscope: cannot write the output: " << std::strerror(error) << "\n";
    if (code == 0 || code == 1) code = 3;
  }
  return code;
}
