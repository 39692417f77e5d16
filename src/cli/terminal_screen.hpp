#pragma once
// The terminal under `vramscope watch`'s full-screen view, through ncurses: takes the terminal
// over (alternate screen, no echo, keys without Enter), draws a page that report/ laid out, and
// hands back keys. ncurses stays in terminal_screen.cpp, outside the module's unity build, so
// its macros (clear, erase, move, ...) reach no other file.

#include <memory>
#include <string>
#include <vector>

#include <vramscope/report/watch_report.hpp>

namespace vramscope::cli {

class terminal_screen {
 public:
  /// Takes over the terminal on standard input and output. Null, with `why` set, when it cannot
  /// (TERM unset or unknown); the caller falls back to plain text.
  static std::unique_ptr<terminal_screen> open(std::string& why);
  ~terminal_screen();  // gives the terminal back as it was
  terminal_screen(const terminal_screen&) = delete;
  terminal_screen& operator=(const terminal_screen&) = delete;

  /// True when the locale's character set is UTF-8, so block characters can be drawn.
  [[nodiscard]] bool unicode() const { return unicode_; }
  [[nodiscard]] int width() const;
  [[nodiscard]] int height() const;

  /// Replaces what the terminal shows with `page` (the lines of report::watch_screen::layout).
  void draw(const std::vector<report::screen_line>& page);

  enum class key { none, quit, sort, processes, resize, other };
  /// The next key pressed, without waiting; key::none when there is none.
  key read_key();

 private:
  terminal_screen() = default;
  void* screen_ = nullptr;  // ncurses' SCREEN*
  bool unicode_ = false;
};

}  // namespace vramscope::cli
