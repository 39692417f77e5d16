#include "import/megatron/megatron_args.hpp"

#include "import/shell_launch.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace vramscope::job::detail {

bool flag_given(const import_context& ctx, const std::string& flag) {
  return ctx.find(flag) != nullptr;
}

const diagnostic* chosen_by_arguments(const import_context& ctx, const std::string& text) {
  for (const auto& [name, where] : ctx.chosen_by_arguments) {
    if (name.starts_with(run_time_marker)) continue;
    for (auto at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
      const bool dollar = (at >= 1 && text[at - 1] == '$') ||
                          (at >= 2 && text[at - 1] == '{' && text[at - 2] == '$');
      const char after = at + name.size() < text.size() ? text[at + name.size()] : ' ';
      if (dollar && !(std::isalnum(static_cast<unsigned char>(after)) != 0 || after == '_'))
        return &where;
    }
  }
  return nullptr;
}

const diagnostic* argument_choosing(const import_context& ctx, const diagnostic& chosen) {
  for (const auto& [name, where] : ctx.set_from_arguments)
    if (find_expansion(chosen.context, name) != std::string_view::npos) return &where;
  return nullptr;
}

const diagnostic* run_time_value(const import_context& ctx, const std::string& text) {
  // A command's output copied to other variables (`NUM_GPUS=$(...)`, then `EP_SIZE=$NUM_GPUS`)
  // is the first assignment of exactly that text, where the command runs.
  if (text.find("$(") != std::string::npos || text.find('`') != std::string::npos)
    for (const auto& [value, where] : ctx.chosen_by_arguments)
      if (value.starts_with(run_time_marker) && value.size() > 1 && value.substr(1) == text)
        return &where;
  // Otherwise the last assignment of the text is where the word took it.
  for (auto it = ctx.chosen_by_arguments.rbegin(); it != ctx.chosen_by_arguments.rend(); ++it)
    if (it->first.starts_with(run_time_marker) &&
        text.find(it->first.substr(1)) != std::string::npos)
      return &it->second;
  return nullptr;
}

bool positional(const std::string& text) {
  for (std::size_t at = text.find('$'); at != std::string::npos; at = text.find('$', at + 1)) {
    const std::size_t digit = at + 1 < text.size() && text[at + 1] == '{' ? at + 2 : at + 1;
    if (digit < text.size() && std::isdigit(static_cast<unsigned char>(text[digit])) != 0)
      return true;
  }
  return false;
}

std::string unread_sources_named(const import_context& ctx) {
  std::vector<std::string> named;
  for (const auto& [file, line] : ctx.unread_sources)
    named.push_back(fmt::format("{} (line {})", file, line));
  return join(named, ", ");
}

namespace {

// A value as a refusal quotes it: on one line (a command substitution spanning lines, its
// backslash-newlines and indentation, reads as its words) and at most 80 characters, the rest
// elided.
std::string one_line(const std::string& value) {
  std::string out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    const bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
                       (c == '\\' && i + 1 < value.size() && value[i + 1] == '\n');
    if (!blank) {
      out += c;
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  constexpr std::size_t most = 80;
  if (out.size() > most) out = out.substr(0, most - 3) + "...";
  return out;
}

}  // namespace

std::optional<diagnostic> unset_value(const import_context& ctx, const entry& e,
                                      const std::string& flag) {
  const std::string& text = e.value.text;
  const std::string shown = one_line(text);
  if (const diagnostic* chosen = chosen_by_arguments(ctx, text)) {
    // A conditional on a variable the script sets from its own argument is chosen where that
    // argument is taken.
    const diagnostic* from = argument_choosing(ctx, *chosen);
    return from == nullptr
               ? at(*chosen, fmt::format("{}: \"{}\": {}; write the number into the script", flag,
                                         shown, chosen->message))
               : at(*from, fmt::format("{}, and it chooses {} (line {}): \"{}\": {} (line {}); "
                                       "write the number into the script",
                                       from->message, flag, e.where.line, shown, chosen->message,
                                       chosen->line));
  } else if (const diagnostic* origin = run_time_value(ctx, text))
    return at(*origin, fmt::format("{} (line {}): \"{}\": {}; write the number into the script",
                                   flag, e.where.line, shown, origin->message));
  else if (positional(text))
    return at(e.where, fmt::format("{}: \"{}\" is an argument given to the script when it is "
                                   "run, which a file does not have; write the number",
                                   flag, shown));
  else if (text.find('$') != std::string::npos) {
    // Pointed at the first argument holding the same unset text (`--seq-length $SEQ` before
    // `--max-position-embeddings $SEQ`): where a reader of the file first meets it.
    const entry* first = &e;
    for (const auto& other : ctx.entries)
      if (other.value.text == text && other.where.line > 0 && other.where.line < first->where.line)
        first = &other;
    // A file the script sources and vramscope could not read may set it: named, with how to
    // give it.
    std::string fix = "write the number";
    if (!ctx.unread_sources.empty() && !text.starts_with("$("))
      fix = fmt::format(
          "the script sources {}, which vramscope could not read and which may set "
          "it: put {} where the script names it (a relative path is looked for "
          "from the script's folder), or write the number",
          unread_sources_named(ctx), ctx.unread_sources.size() == 1 ? "that file" : "those files");
    return first == &e
               ? at(e.where, fmt::format("{}: \"{}\" uses a variable or command the script does "
                                         "not set; {}",
                                         flag, shown, fix))
               : at(first->where,
                    fmt::format("{}: \"{}\" uses a variable or command the script does not set, "
                                "and {} (line {}) takes it too; {}",
                                first->key, shown, flag, e.where.line, fix));
  }
  return std::nullopt;
}

long long flag_int(const import_context& ctx, const std::string& flag, long long fallback,
                   long long min, std::optional<diagnostic>& error, long long max) {
  const entry* e = ctx.find(flag);
  if (e == nullptr) return fallback;
  const std::string& text = e->value.text;
  char* end = nullptr;
  errno = 0;
  const long long value = text.empty() ? 0 : std::strtoll(text.c_str(), &end, 10);
  const bool whole = !text.empty() && end != nullptr && *end == '\0' && errno == 0;
  if (whole && value >= min && value <= max) return value;
  if (error) return fallback;
  if (text.empty())
    error = at(e->where,
               fmt::format("{}: expected a value (a whole number of at least {})", flag, min));
  else if (auto unset = unset_value(ctx, *e, flag))
    error = unset;
  else if (whole && value > max)
    error = at(e->where, fmt::format("{}: {} is more than {}; write at most {} to plan it", flag,
                                     value, max, max));
  else
    error =
        at(e->where, fmt::format("{}: expected a whole number of at least {}, got \"{}\"; write "
                                 "the number there to plan it",
                                 flag, min, text));
  return fallback;
}

std::string flag_text(const import_context& ctx, const std::string& flag,
                      const std::string& fallback) {
  const entry* e = ctx.find(flag);
  return e == nullptr || e->value.text.empty() ? fallback : e->value.text;
}

}  // namespace vramscope::job::detail
