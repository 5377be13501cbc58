//===- TapePicture.cpp - a kernel's tape along its forward sweep -----------===//
//
// The model is the plan's estimates laid along the source: lines on the x
// axis, bytes held on the y axis, one curve per way of reversing the loops.
// It is drawn from --plan-json's object of the kernel, so the picture and
// the plan never disagree; tests/utils/check-report checks one against the
// other.
//
//===----------------------------------------------------------------------===//
#include "report/TapePicture.h"

#include "report/HtmlText.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace cgp {
namespace {

using html::bytes;
using html::escape;
using html::number;

/// The picture of one kernel: the tape its gradient holds as the forward
/// sweep runs down the kernel's lines, storing every value, with the plan,
/// and under the memory budget when one is given. A value adds its bytes
/// when the sweep passes its line; an outermost loop adds what it holds
/// evenly over its lines (its iterations run them again and again). With
/// the plan, a loop that runs a share of its iterations again holds the
/// rest of its tape and a snapshot; under a budget, a loop that keeps
/// snapshots holds what the budget leaves it, at least a snapshot and an
/// iteration (cgp::rt plans its checkpoints for that at run time).
struct TapePicture {
  struct Loop {
    long first, last;
    double storeAll, plan, least;
    bool holdable;
  };
  struct Value {
    long line;
    double storeAll, plan;
  };
  long first = 0, last = 0;
  std::vector<Loop> loops; // the outermost ones, in source order
  std::vector<Value> values; // those outside every outermost loop

  TapePicture(const nlohmann::json &f) {
    first = f["line"].get<long>();
    last = std::max(first, f["end_line"].get<long>());
    for (const nlohmann::json &l : f["loops"]) {
      long a = l["line"].get<long>(), b = std::max(a, l["end_line"].get<long>());
      bool inside = false;
      for (const Loop &outer : loops)
        inside |= outer.first <= a && b <= outer.last;
      if (inside)
        continue;
      double share = l["replay_share"].get<double>();
      double snapshot = l["snapshot_bytes"].is_null() ? 0 : l["snapshot_bytes"].get<double>();
      double tape = l["tape_bytes"].get<double>();
      loops.push_back({a, b, l["store_all_bytes"].get<double>(),
                       tape * (1 - share) + (share > 0 ? snapshot : 0),
                       snapshot + l["bytes_per_iteration"].get<double>(),
                       !l["snapshot_bytes"].is_null()});
      last = std::max(last, b);
    }
    for (const nlohmann::json &v : f["values"]) {
      long line = v["line"].get<long>();
      bool inLoop = false;
      for (const Loop &l : loops)
        inLoop |= l.first <= line && line <= l.last;
      if (inLoop)
        continue;
      double bytes = v["bytes"].get<double>();
      values.push_back({line, bytes, v["decision"] == "store" ? bytes : 0.0});
    }
  }

  /// Bytes held when the sweep reaches `x` (a line; fractions within
  /// loops), with `loopHeld` the bytes each loop holds at its end.
  template <typename ValueBytes>
  double heldAt(double x, const std::vector<double> &loopHeld, ValueBytes valueBytes) const {
    double held = 0;
    for (const Value &v : values)
      if (v.line < x)
        held += valueBytes(v);
    for (size_t i = 0; i < loops.size(); ++i) {
      double span = static_cast<double>(loops[i].last + 1 - loops[i].first);
      held += loopHeld[i] * std::clamp((x - loops[i].first) / span, 0.0, 1.0);
    }
    return held;
  }

  /// What each loop holds at its end under `budget`: what the plan holds,
  /// less what the budget does not leave it when it keeps snapshots.
  std::vector<double> underBudget(double budget) const {
    std::vector<double> held;
    for (const Loop &l : loops) {
      std::vector<double> before = held;
      before.resize(loops.size(), 0.0);
      double already = heldAt(static_cast<double>(l.first), before,
                              [](const Value &v) { return v.plan; });
      held.push_back(l.holdable ? std::min(l.plan, std::max(budget - already, l.least)) : l.plan);
    }
    return held;
  }
};

std::string svgNumber(double v) { return number("%.1f", v); }

} // namespace

std::string tapePictureSvg(const nlohmann::json &f, long budget) {
  TapePicture pic(f);
  struct Curve {
    const char *name, *color, *dash;
    std::vector<double> loopHeld;
    bool plan;
  };
  std::vector<double> storeAll, plan;
  for (const TapePicture::Loop &l : pic.loops) {
    storeAll.push_back(l.storeAll);
    plan.push_back(l.plan);
  }
  std::vector<Curve> curves = {{"store every value", "#999999", "6 3", storeAll, false},
                               {"this plan", "#1f6fb4", "", plan, true}};
  if (budget >= 0)
    curves.push_back({"under the memory budget", "#2a8f3c", "", pic.underBudget(budget), true});
  // Points at every line boundary, from the kernel's first line to past its last.
  std::vector<std::vector<std::pair<double, double>>> points(curves.size());
  double top = 0;
  for (long x = pic.first; x <= pic.last + 1; ++x)
    for (size_t c = 0; c < curves.size(); ++c) {
      bool usePlan = curves[c].plan;
      double y = pic.heldAt(static_cast<double>(x), curves[c].loopHeld,
                            [&](const TapePicture::Value &v) { return usePlan ? v.plan : v.storeAll; });
      points[c].push_back({static_cast<double>(x), y});
      top = std::max(top, y);
    }
  if (top <= 0)
    return ""; // it tapes nothing
  // A budget far above what the kernel holds is named, not drawn.
  const bool budgetDrawn = budget >= 0 && static_cast<double>(budget) <= 2 * top;
  if (budgetDrawn)
    top = std::max(top, static_cast<double>(budget));
  const double width = 640, height = 200, left = 70, right = 170, bottom = 30, topMargin = 10;
  const double plotW = width - left - right, plotH = height - bottom - topMargin;
  const double span = static_cast<double>(pic.last + 1 - pic.first);
  auto px = [&](double x) { return left + plotW * (x - pic.first) / std::max(span, 1.0); };
  auto py = [&](double y) { return topMargin + plotH * (1 - y / (top * 1.05)); };
  std::ostringstream out;
  out << "<svg class=\"tape\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
      << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height
      << "\" role=\"img\" aria-label=\"tape held along the forward sweep of "
      << escape(f["name"].get<std::string>()) << "\">\n";
  out << "<title>Tape held along the forward sweep, by line</title>\n";
  out << "<line x1=\"" << left << "\" y1=\"" << svgNumber(py(0)) << "\" x2=\"" << left + plotW
      << "\" y2=\"" << svgNumber(py(0)) << "\" stroke=\"#333\"/>\n";
  out << "<line x1=\"" << left << "\" y1=\"" << topMargin << "\" x2=\"" << left << "\" y2=\""
      << svgNumber(py(0)) << "\" stroke=\"#333\"/>\n";
  out << "<text x=\"" << left - 4 << "\" y=\"" << svgNumber(py(top) + 4)
      << "\" text-anchor=\"end\" font-size=\"11\">" << escape(bytes(top)) << "</text>\n";
  out << "<text x=\"" << left - 4 << "\" y=\"" << svgNumber(py(0) + 4)
      << "\" text-anchor=\"end\" font-size=\"11\">0</text>\n";
  out << "<text x=\"" << left << "\" y=\"" << height - 8 << "\" font-size=\"11\">line "
      << pic.first << "</text>\n<text x=\"" << left + plotW << "\" y=\"" << height - 8
      << "\" text-anchor=\"end\" font-size=\"11\">line " << pic.last << "</text>\n";
  for (const TapePicture::Loop &l : pic.loops)
    out << "<rect class=\"loop\" x=\"" << svgNumber(px(static_cast<double>(l.first)))
        << "\" y=\"" << topMargin << "\" width=\""
        << svgNumber(px(static_cast<double>(l.last + 1)) - px(static_cast<double>(l.first)))
        << "\" height=\"" << svgNumber(plotH) << "\" fill=\"#f0f0f8\"><title>loop, lines "
        << l.first << "-" << l.last << "</title></rect>\n";
  if (budget >= 0 && !budgetDrawn)
    out << "<text class=\"budget\" x=\"" << left + plotW + 10 << "\" y=\""
        << topMargin + 14 + 16.0 * static_cast<double>(curves.size())
        << "\" font-size=\"11\" fill=\"#c0392b\">budget "
        << escape(bytes(static_cast<double>(budget))) << " (above)</text>\n";
  if (budgetDrawn)
    out << "<line class=\"budget\" x1=\"" << left << "\" y1=\"" << svgNumber(py(budget))
        << "\" x2=\"" << left + plotW << "\" y2=\"" << svgNumber(py(budget))
        << "\" stroke=\"#c0392b\" stroke-dasharray=\"2 2\"><title>memory budget "
        << escape(bytes(static_cast<double>(budget))) << "</title></line>\n";
  for (size_t c = 0; c < curves.size(); ++c) {
    out << "<polyline class=\"curve\" data-name=\"" << curves[c].name << "\" data-peak=\""
        << number("%.0f", points[c].back().second) << "\" fill=\"none\" stroke=\""
        << curves[c].color << "\" stroke-width=\"2\"";
    if (*curves[c].dash)
      out << " stroke-dasharray=\"" << curves[c].dash << "\"";
    out << " points=\"";
    for (size_t i = 0; i < points[c].size(); ++i)
      out << (i ? " " : "") << svgNumber(px(points[c][i].first)) << ","
          << svgNumber(py(points[c][i].second));
    out << "\"/>\n";
    double y = topMargin + 14 + 16.0 * static_cast<double>(c);
    out << "<line x1=\"" << left + plotW + 10 << "\" y1=\"" << y - 4 << "\" x2=\""
        << left + plotW + 30 << "\" y2=\"" << y - 4 << "\" stroke=\"" << curves[c].color
        << "\" stroke-width=\"2\"/><text x=\"" << left + plotW + 34 << "\" y=\"" << y
        << "\" font-size=\"11\">" << curves[c].name << "</text>\n";
  }
  out << "</svg>\n";
  return out.str();
}

} // namespace cgp
