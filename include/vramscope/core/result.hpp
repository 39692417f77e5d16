#pragma once
// result<T>: a value or a diagnostic. g++ 12 in C++20 has no std::expected; this is the small
// subset vramscope uses. Accessing the wrong alternative is a bug and throws std::logic_error.

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include <vramscope/core/diagnostic.hpp>

namespace vramscope {

template <typename T>
class [[nodiscard]] result {
 public:
  result(T value) : state_(std::move(value)) {}             // NOLINT: implicit by design
  result(diagnostic error) : state_(std::move(error)) {}    // NOLINT: implicit by design

  [[nodiscard]] bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { check(true); return std::get<0>(state_); }
  const T& value() const& { check(true); return std::get<0>(state_); }
  T&& value() && { check(true); return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  [[nodiscard]] const diagnostic& error() const { check(false); return std::get<1>(state_); }

 private:
  void check(bool want_value) const {
    if (has_value() != want_value)
      throw std::logic_error(want_value ? "result: value() on an error: " + std::get<1>(state_).to_string()
                                        : "result: error() on a value");
  }
  std::variant<T, diagnostic> state_;
};

/// For operations that produce nothing but may fail.
struct ok_t {};
using status = result<ok_t>;
inline status ok() { return ok_t{}; }

/// Builds a diagnostic without location, for the common case.
inline diagnostic error_at(std::string source, std::string message, int line = 0, int column = 0,
                           std::string context = {}) {
  return diagnostic{std::move(source), line, column, std::move(message), std::move(context)};
}

}  // namespace vramscope

namespace vramscope::detail {
/// Throws std::logic_error("FILE:LINE: message"). Out of line and cold, so that a check inlined
/// into a hot path costs its test only (the replay checks every handle it frees).
[[noreturn, gnu::cold]] void contract_failed(const char* file, int line, std::string_view message);
}  // namespace vramscope::detail

/// Bugs and broken preconditions: throws std::logic_error naming file and line.
#define VRAMSCOPE_EXPECTS(cond, msg)                                   \
  do {                                                                 \
    if (!(cond)) [[unlikely]]                                          \
      ::vramscope::detail::contract_failed(__FILE__, __LINE__, (msg)); \
  } while (false)
