#pragma once
// What the HTML reports share: escaping and the page's style sheet. Every page is one file with
// inline CSS and SVG, so it opens from disk, offline, in any browser, and prints.

#include <string>
#include <string_view>

namespace vramscope::report::detail {

inline std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

inline constexpr const char* page_style = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:28px 0 8px}
.job{color:#555}
.verdict{padding:10px 14px;border-radius:6px;font-weight:600;margin:16px 0}
.fits{background:#e6f4ea;color:#1e6b34}.nofit{background:#fdecea;color:#a4231b}
.tight{background:#fdf1e3;color:#8a4b08}
.legend span{display:inline-block;margin-right:14px;white-space:nowrap}
.swatch{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
.ranks{display:flex;flex-wrap:wrap;gap:16px} figure{margin:0} figcaption{font-weight:600}
table{border-collapse:collapse}td,th{padding:2px 10px;text-align:right}th{text-align:left}
td:first-child{text-align:left}
.note{color:#555}
svg text{font:12px system-ui,sans-serif;fill:#333}
svg[viewBox]{max-width:100%;height:auto}
)";

/// The page up to its heading: doctype, title, the shared style sheet (plus `extra_style`),
/// "<h1>title</h1>" and, when given, the one-line description under it.
inline std::string page_start(std::string_view title, std::string_view description,
                              std::string_view extra_style = {}) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>";
  out += escape(title);
  out += "</title>\n<style>";
  out += page_style;
  out += extra_style;
  out += "</style></head><body>\n<h1>";
  out += escape(title);
  out += "</h1>\n";
  if (!description.empty()) {
    out += "<p class=\"job\">";
    out += escape(description);
    out += "</p>\n";
  }
  return out;
}

}  // namespace vramscope::report::detail
