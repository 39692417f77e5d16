// The vramscope command. Everything lives in the cli library; see vramscope::cli::run.
#include <vramscope/cli/run.hpp>

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return vramscope::cli::run(args, std::cout, std::cerr);
}
