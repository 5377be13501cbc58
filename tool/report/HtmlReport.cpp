//===- HtmlReport.cpp - --report=FILE.html --------------------------------===//
//
// One self-contained page (inline CSS, no scripts, no outside links): per
// input, its kernels with the plan of each (the values the reverse sweep
// needs, stored or recomputed, with G, T, M and the score; how each loop is
// reversed; estimated tape bytes and recompute cost), the input's source
// with line numbers that the plan links to, the generated code, and per
// kernel a picture of its tape (TapePicture.cpp). It is
// rendered from the same JSON object as --plan-json, so the two never
// disagree.
//
//===----------------------------------------------------------------------===//
#include "report/HtmlReport.h"

#include "report/HtmlText.h"
#include "report/TapePicture.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace cgp {
namespace {

using html::bytes;
using html::escape;
using html::number;

std::string lineLink(int input, const nlohmann::json &line) {
  std::string n = std::to_string(line.get<long>());
  return "<a href=\"#in" + std::to_string(input) + "-L" + n + "\">" + n + "</a>";
}

/// A loop's trip count: known, or at run time with what the estimates
/// took (the profile's mean, or the default).
std::string tripCount(const nlohmann::json &l) {
  if (!l["trips"].is_null())
    return std::to_string(l["trips"].get<long>());
  double estimate = l["estimated_trips"].get<double>();
  return l["trip_source"] == "profile"
             ? "at run time (" + number("%.1f", estimate) + " in the profile)"
             : "at run time (" + number("%.0f", estimate) + " assumed)";
}

std::string functionSection(int input, const nlohmann::json &f, long budget) {
  std::ostringstream out;
  double storeAll = f["store_all_bytes"].get<double>();
  double planned = f["planned_bytes"].get<double>();
  out << "<h3>" << escape(f["kind"].get<std::string>()) << " <code>"
      << escape(f["name"].get<std::string>()) << "</code> (line "
      << lineLink(input, f["line"]) << ")</h3>\n<p>Tape per call: " << bytes(storeAll)
      << " storing every value, <b>" << bytes(planned) << "</b> with this plan ("
      << number("%.2f", storeAll > 0 ? storeAll / std::max(planned, 1.0) : 1.0)
      << "x less). Recompute: " << number("%.1f", 100.0 * f["recompute_fraction"].get<double>())
      << "% of the primal's estimated time.</p>\n";
  if (f["kind"] == "kernel")
    out << tapePictureSvg(f, budget);
  const nlohmann::json &values = f["values"];
  if (values.empty()) {
    out << "<p>The reverse sweep needs no value from the forward sweep.</p>\n";
  } else {
    out << "<table><tr><th>value</th><th>line</th><th>type</th><th>bytes</th>"
           "<th>decision</th><th>G</th><th>T</th><th>M</th><th>score</th><th>why</th></tr>\n";
    for (const nlohmann::json &v : values) {
      bool candidate = v["candidate"].get<bool>();
      bool recompute = v["decision"] == "recompute";
      auto term = [&](const char *key) {
        return candidate ? number("%.3f", v[key].get<double>()) : std::string("");
      };
      out << "<tr class=\"" << (recompute ? "recompute" : "store") << "\"><td><code>"
          << escape(v["name"].get<std::string>()) << "</code></td><td>"
          << lineLink(input, v["line"]) << "</td><td>" << escape(v["type"].get<std::string>())
          << "</td><td>" << bytes(v["bytes"].get<double>()) << "</td><td>"
          << escape(v["decision"].get<std::string>()) << "</td><td>" << term("G") << "</td><td>"
          << term("T") << "</td><td>" << term("M") << "</td><td>"
          << (candidate ? number("%.4f", v["score"].get<double>()) : std::string(""))
          << "</td><td>" << escape(v["reason"].get<std::string>()) << "</td></tr>\n";
    }
    out << "</table>\n";
  }
  const nlohmann::json &loops = f["loops"];
  if (!loops.empty()) {
    out << "<table><tr><th>loop</th><th>line</th><th>trip count</th><th>tape per iteration</th>"
           "<th>tape per call</th><th>snapshot</th><th>time of one run</th><th>reversed by</th>"
           "<th>why</th></tr>\n";
    for (const nlohmann::json &l : loops)
      out << "<tr><td>" << escape(l["label"].get<std::string>()) << "</td><td>"
          << lineLink(input, l["line"]) << "</td><td>"
          << tripCount(l) << "</td><td>" << bytes(l["bytes_per_iteration"].get<double>()) << "</td><td>"
          << bytes(l["tape_bytes"].get<double>()) << "</td><td>"
          << (l["snapshot_bytes"].is_null() ? std::string("none")
                                            : bytes(l["snapshot_bytes"].get<double>()))
          << "</td><td>" << number("%.1f", 100.0 * l["time_fraction"].get<double>())
          << "% of the primal</td><td>" << escape(l["strategy"].get<std::string>())
          << "</td><td>" << escape(l["reason"].get<std::string>()) << "</td></tr>\n";
    out << "</table>\n";
  }
  return out.str();
}

std::string numberedSource(int input, const std::string &text) {
  std::ostringstream out;
  out << "<pre class=\"source\">";
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n)
    out << "<span id=\"in" << input << "-L" << n << "\"><i>" << number("%5.0f", n) << "</i>  "
        << escape(line) << "</span>\n";
  out << "</pre>\n";
  return out.str();
}

constexpr const char *kStyle = R"(body{font-family:sans-serif;margin:2em;max-width:80em}
table{border-collapse:collapse;margin:0.5em 0 1em}td,th{border:1px solid #ccc;padding:2px 6px;
text-align:left;font-size:90%}tr.recompute td{background:#eef8ee}pre{background:#f6f6f6;
padding:0.5em;overflow-x:auto;font-size:85%}pre.source i{color:#999;font-style:normal}
span:target{background:#ffd}svg.tape{display:block;margin:0.5em 0}h2{border-bottom:1px solid #ccc}code{font-size:95%})";

} // namespace

std::string inputReportHtml(int index, const std::string &planJsonObject,
                            const std::string &sourceText, const std::string &generatedText,
                            long memoryBudget) {
  nlohmann::json in = nlohmann::json::parse(planJsonObject);
  std::ostringstream out;
  out << "<h2>" << escape(in["file"].get<std::string>()) << "</h2>\n";
  int kernels = 0;
  for (const nlohmann::json &f : in["functions"])
    kernels += f["kind"] == "kernel";
  out << "<p>" << kernels << " differentiated kernel" << (kernels == 1 ? "" : "s")
      << " (reverse mode), " << in["functions"].size() - kernels
      << " helper variant" << (in["functions"].size() - kernels == 1 ? "" : "s") << ".</p>\n";
  for (const nlohmann::json &f : in["functions"])
    out << functionSection(index, f, memoryBudget);
  out << "<details open><summary>Source</summary>\n" << numberedSource(index, sourceText)
      << "</details>\n";
  out << "<details><summary>Generated code</summary>\n<pre>" << escape(generatedText)
      << "</pre></details>\n";
  return out.str();
}

std::string reportDocument(const std::vector<std::string> &inputSections,
                           const std::string &optionsText, const std::string &toolVersion) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      << "<title>cgp-ad report</title>\n<style>" << kStyle << "</style></head><body>\n"
      << "<h1>cgp-ad report</h1>\n<p>cgp-ad " << escape(toolVersion) << "; "
      << escape(optionsText) << ". Estimates are per call; loops whose trip count is known only "
      << "at run time count the mean of the profile (--profile), else " << kDefaultTripCount
      << " iterations. Rows in green are "
      << "recomputed in the reverse sweep instead of stored; see docs/cgp-model.md for G, T, M "
      << "and the score. Each kernel's picture shows the tape its gradient holds as the forward "
      << "sweep runs down the kernel's lines (loops shaded), storing every value, with the plan "
      << "and, under a memory budget, what the run-time checkpoints leave of it.</p>\n";
  for (const std::string &s : inputSections)
    out << s;
  out << "</body></html>\n";
  return out.str();
}

} // namespace cgp
