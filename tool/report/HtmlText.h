//===- HtmlText.h - text for the HTML report ---------------------*- C++ -*-===//
//
// What the report's page and its pictures write alike: HTML-escaped text,
// numbers in a printf format, and byte counts in B, KiB or MiB.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_REPORT_HTMLTEXT_H
#define CGP_REPORT_HTMLTEXT_H

#include <cstdio>
#include <string>

namespace cgp {
namespace html {

inline std::string escape(const std::string &text) {
  std::string out;
  out.reserve(text.size());
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

inline std::string number(const char *format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

inline std::string bytes(double b) {
  if (b >= 1024.0 * 1024.0)
    return number("%.1f MiB", b / (1024.0 * 1024.0));
  if (b >= 1024.0)
    return number("%.1f KiB", b / 1024.0);
  return number("%.0f B", b);
}

} // namespace html
} // namespace cgp

#endif // CGP_REPORT_HTMLTEXT_H
