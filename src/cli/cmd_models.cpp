// PLACEHOLDER: replaced by the model module work.
#include "cli/commands.hpp"
#include <ostream>
namespace vramscope::cli {
int cmd_models(const std::vector<std::string>&, std::ostream&, std::ostream& err) {
  err << "not built yet\n";
  return 3;
}
}  // namespace vramscope::cli
