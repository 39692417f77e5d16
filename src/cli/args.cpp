#include "cli/args.hpp"

#include <vramscope/core/diagnostic.hpp>

#include <fmt/format.h>

#include <memory>
#include <sstream>

#include "cli/commands.hpp"

namespace vramscope::cli {

namespace {

thread_local const std::function<void(const CLI::App&)>* describing = nullptr;

// CLI11's own usage line names the app alone ("Usage: plan [OPTIONS]") after the description;
// ours is the table's, first, so `--help`, `vramscope help` and the man page print the same
// synopsis, and every command's help starts the same way.
class usage_formatter : public CLI::Formatter {
 public:
  std::string make_description(const CLI::App*) const override { return ""; }
  std::string make_usage(const CLI::App* app, std::string name) const override {
    const command* c = find_command(app->get_name());
    const std::string usage = c ? fmt::format("Usage: vramscope {}\n", c->usage)
                                : CLI::Formatter::make_usage(app, std::move(name));
    return usage + "\n" + app->get_description() + "\n";
  }
};

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names{"--help"};
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const auto& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// The first argument CLI11 left over, as a message: an unknown option (with the closest
// known name) or a positional argument too many.
std::string leftover_message(const CLI::App& app, const std::string& arg) {
  if (arg.size() < 2 || arg[0] != '-') return fmt::format("unexpected argument '{}'", arg);
  const std::string name = arg.substr(0, arg.find('='));
  const std::string near = did_you_mean(name, option_names(app));
  return fmt::format("unknown option '{}'{}", name,
                     near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near));
}

int usage_error(const CLI::App& app, const std::string& message, std::ostream& err) {
  err << "vramscope " << app.get_name() << ": " << message << "\n"
      << "run 'vramscope help " << app.get_name() << "' for usage\n";
  return static_cast<int>(exit_status::bad_input);
}

void prepare(CLI::App& app) {
  app.formatter(std::make_shared<usage_formatter>());
  app.allow_extras();
  if (app.get_option_no_throw("--set") != nullptr) {
    const std::string own = app.get_footer();  // a command's own footer (its exit codes) first
    app.footer(own + (own.empty() ? "" : "\n") +
               "Keys for --set: run 'vramscope keys' for every key with its default and "
               "allowed values.");
  }
}

}  // namespace

bool parse_args(CLI::App& app, const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err, int& code) {
  prepare(app);
  if (describing != nullptr) {
    (*describing)(app);
    code = static_cast<int>(exit_status::ok);
    return false;
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    code = static_cast<int>(exit_status::ok);
    return false;
  } catch (const CLI::ParseError& e) {
    code = usage_error(app, e.what(), err);
    return false;
  }
  if (const auto rest = app.remaining(); !rest.empty()) {
    code = usage_error(app, leftover_message(app, rest.front()), err);
    return false;
  }
  return true;
}

void describe_commands(const std::function<void(const CLI::App&)>& visit) {
  const auto* saved = describing;
  describing = &visit;
  std::ostringstream sink;
  try {
    for (const auto& c : commands()) c.run({}, sink, sink);
  } catch (...) {
    describing = saved;
    throw;
  }
  describing = saved;
}

}  // namespace vramscope::cli
