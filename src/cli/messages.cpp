#include "cli/messages.hpp"

#include <vramscope/cli/run.hpp>

namespace vramscope::cli {

int report_bad_input(std::ostream& err, const std::string& command, const diagnostic& d) {
  err << "vramscope " << command << ": " << d.to_string() << "\n";
  return static_cast<int>(exit_status::bad_input);
}

void print_notes(std::ostream& err, const warnings& notes) {
  for (const auto& n : notes) err << "warning: " << n.to_string() << "\n";
}

}  // namespace vramscope::cli
