#include "cli/command_docs.hpp"

#include <CLI/CLI.hpp>

#include "cli/args.hpp"

namespace vramscope::cli {

namespace {

option_doc option_of(const CLI::Option& o) {
  option_doc d;
  if (o.nonpositional()) {
    for (const auto& s : o.get_snames()) d.names.push_back("-" + s);
    for (const auto& l : o.get_lnames()) d.names.push_back("--" + l);
  } else {
    d.positional = o.get_name(true, false);
  }
  d.description = o.get_description();
  d.takes_value = o.get_expected_max() != 0;  // add_flag sets expected(0)
  return d;
}

}  // namespace

std::vector<command_doc> command_docs() {
  std::vector<command_doc> docs;
  for (const auto& c : commands()) docs.push_back(command_doc{&c, "", "", {}});
  describe_commands([&docs](const CLI::App& app) {
    for (auto& d : docs) {
      if (d.row->name != app.get_name()) continue;
      d.description = app.get_description();
      d.footer = app.get_footer();
      for (const CLI::Option* o : app.get_options())
        if (o != app.get_help_ptr()) d.options.push_back(option_of(*o));
    }
  });
  return docs;
}

}  // namespace vramscope::cli
