// vramscope_accuracy: see accuracy_cli.hpp.
#include <exception>
#include <iostream>

#include "accuracy/accuracy_cli.hpp"

int main(int argc, char** argv) {
  try {
    return vramscope::bench::run_accuracy({argv + 1, argv + argc}, std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "vramscope_accuracy: internal error: " << e.what() << "\n";
    return 3;
  }
}
