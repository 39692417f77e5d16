#include "import/megatron/megatron_args.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>

namespace vramscope::job::detail {

bool flag_given(const import_context& ctx, const std::string& flag) {
  return ctx.find(flag) != nullptr;
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
  else if (text.find('$') != std::string::npos)
    error = at(e->where, fmt::format("{}: \"{}\" uses a variable or command the script does not "
                                     "set; write the number",
                                     flag, text));
  else if (whole && value > max)
    error = at(e->where, fmt::format("{}: {} is more than {}", flag, value, max));
  else
    error = at(e->where, fmt::format("{}: expected a whole number of at least {}, got \"{}\"", flag,
                                     min, text));
  return fallback;
}

std::string flag_text(const import_context& ctx, const std::string& flag,
                      const std::string& fallback) {
  const entry* e = ctx.find(flag);
  return e == nullptr || e->value.text.empty() ? fallback : e->value.text;
}

}  // namespace vramscope::job::detail
