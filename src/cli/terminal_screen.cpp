#include "cli/terminal_screen.hpp"

#include <curses.h>
#include <langinfo.h>

#include <clocale>
#include <cstdio>
#include <cstring>

namespace vramscope::cli {

namespace {

enum pair_id : short { pair_good = 1, pair_warn, pair_bad, pair_alert, pair_dim };

attr_t attributes_of(report::screen_style style, bool colour) {
  using report::screen_style;
  auto coloured = [&](short pair, attr_t fallback) {
    return colour ? static_cast<attr_t>(COLOR_PAIR(pair)) : fallback;
  };
  switch (style) {
    case screen_style::plain:
      return A_NORMAL;
    case screen_style::title:
      return A_REVERSE | A_BOLD;
    case screen_style::header:
      return A_BOLD;
    case screen_style::dim:
      return coloured(pair_dim, A_DIM);
    case screen_style::good:
      return coloured(pair_good, A_NORMAL);
    case screen_style::warn:
      return coloured(pair_warn, A_BOLD) | A_BOLD;
    case screen_style::bad:
      return coloured(pair_bad, A_BOLD) | A_BOLD;
    case screen_style::alert:
      return coloured(pair_alert, A_BOLD);
    case screen_style::footer:
      return A_REVERSE;
  }
  return A_NORMAL;
}

}  // namespace

std::unique_ptr<terminal_screen> terminal_screen::open(std::string& why) {
  // The character set only: numbers and dates keep the "C" conventions everywhere else.
  std::setlocale(LC_CTYPE, "");
  const char* term = std::getenv("TERM");
  if (!term || !*term || std::strcmp(term, "dumb") == 0) {
    why = "TERM is not set to a terminal that can redraw in place";
    return nullptr;
  }
  SCREEN* s = newterm(nullptr, stdout, stdin);
  if (!s) {
    why = std::string("ncurses does not know the terminal \"") + term + "\"";
    return nullptr;
  }
  std::unique_ptr<terminal_screen> t(new terminal_screen());
  t->screen_ = s;
  t->unicode_ = std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
  cbreak();  // keys without Enter; Ctrl-C still raises SIGINT
  noecho();
  nodelay(stdscr, TRUE);
  keypad(stdscr, TRUE);
  curs_set(0);
  if (has_colors()) {
    start_color();
    use_default_colors();
    init_pair(pair_good, COLOR_GREEN, -1);
    init_pair(pair_warn, COLOR_YELLOW, -1);
    init_pair(pair_bad, COLOR_RED, -1);
    init_pair(pair_alert, COLOR_YELLOW, -1);
    init_pair(pair_dim, COLOR_BLUE, -1);
  }
  return t;
}

terminal_screen::~terminal_screen() {
  endwin();
  delscreen(static_cast<SCREEN*>(screen_));
}

int terminal_screen::width() const { return COLS; }
int terminal_screen::height() const { return LINES; }

void terminal_screen::draw(const std::vector<report::screen_line>& page) {
  const bool colour = has_colors();
  werase(stdscr);
  int y = 0;
  for (const auto& line : page) {
    if (y >= LINES) break;
    wmove(stdscr, y, 0);
    for (const auto& run : line) {
      wattrset(stdscr, static_cast<int>(attributes_of(run.style, colour)));
      // At the bottom-right cell ncurses reports an error it cannot scroll past; the text is
      // drawn all the same, and scrolling is off.
      waddstr(stdscr, run.text.c_str());
    }
    ++y;
  }
  wattrset(stdscr, A_NORMAL);
  wrefresh(stdscr);
}

terminal_screen::key terminal_screen::read_key() {
  const int c = wgetch(stdscr);
  switch (c) {
    case ERR:
      return key::none;
    case 'q':
    case 'Q':
    case 27:
      return key::quit;  // 27: Escape
    case 's':
    case 'S':
      return key::sort;
    case 'p':
    case 'P':
      return key::processes;
    case KEY_RESIZE:
      return key::resize;
    default:
      return key::other;
  }
}

}  // namespace vramscope::cli
