//===- Explain.cpp - the plan, for people and for programs ----------------===//
#include "report/Explain.h"

#include "ir/Printer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace cgp {
namespace {

std::string bytesText(double bytes) {
  char buf[64];
  if (bytes >= 1024.0 * 1024.0)
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024.0));
  else if (bytes >= 1024.0)
    std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  return buf;
}

/// For one of the values of a scalar assigned more than once: the line of
/// the assignment that overwrites it (and pushes it, when stored); else 0.
unsigned overwrittenLine(const ValueDecision &v) {
  return v.computedAt && v.computedAt != v.definition ? v.definition->pos.line : 0;
}

std::string num(const char *format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

} // namespace

std::string explainText(const InputPlans &input, const PlanOptions &options) {
  std::string out = "cgp-ad plan for " + input.input + " (strategy " +
                    (options.storeAll ? "store-all" : "cgp") + ", weights alpha=" +
                    num("%g", options.alpha) + " beta=" + num("%g", options.beta) +
                    " gamma=" + num("%g", options.gamma) + ")\n";
  out += "  estimates per call; loops with a trip count unknown when compiling count " +
         std::string(options.profile ? "the mean of the profile, else " : "") +
         std::to_string(kDefaultTripCount) + " iterations\n";
  for (const FunctionPlan &p : input.plans) {
    out += "\n" + std::string(p.isKernel ? "kernel " : "") + p.function + " (line " +
           std::to_string(p.pos.line) + (p.profiled ? ", planned with the profile" : "") + ")\n";
    double saved = p.storeAllBytes > 0 ? p.storeAllBytes / std::max(p.plannedBytes, 1.0) : 1.0;
    out += "  tape: " + bytesText(p.storeAllBytes) + " storing every value, " +
           bytesText(p.plannedBytes) + " with this plan (" + num("%.2fx", saved) + " less)\n";
    out += "  recompute: " + num("%.0f", p.recomputeCost) + " operation units, " +
           num("%.1f%%", p.primalCost > 0 ? 100.0 * p.recomputeCost / p.primalCost : 0.0) +
           " of the primal (" + num("%.0f", p.primalCost) + " units)\n";
    if (p.values.empty())
      out += "  values the reverse sweep needs from the forward sweep: none\n";
    else
      out += "  values the reverse sweep needs from the forward sweep:\n";
    for (const ValueDecision &v : p.values) {
      std::string name = sourceName(*v.var);
      std::string until;
      if (unsigned overwritten = overwrittenLine(v))
        until = ", until line " + std::to_string(overwritten);
      out += "    " + name + " (line " + std::to_string(v.definitionPos.line) + until + ", " +
             v.var->elem.spelling + ", " + bytesText(v.bytes) + "): " +
             (v.reloaded   ? "RELOAD"
              : v.inverted ? "INVERSE UPDATE"
              : v.recompute ? "RECOMPUTE"
                            : "store");
      if (v.candidate)
        out += "  G=" + num("%.3f", v.G) + " T=" + num("%.3f", v.T) + " M=" + num("%.3f", v.M) +
               " score=" + num("%.4f", v.score);
      out += "\n      " + v.reason + "\n";
    }
    if (p.device) {
      out += "  CUDA device code: each thread tapes on its own, " + bytesText(p.plannedBytes) +
             " with this plan; a launch of N threads holds N times that (65536 threads: " +
             bytesText(65536 * p.plannedBytes) + "), in local memory, tape pools "
             "(cgp::dev::reserveTapes) or the device heap\n";
      bool plans = std::any_of(p.loops.begin(), p.loops.end(),
                               [](const LoopDecision &l) { return l.runTimePlan; });
      if (plans)
        out += "    its loops that keep snapshots plan in each thread, for the trip count it "
               "meets, " +
               (options.memoryBudget >= 0
                    ? "within --memory-budget=" + std::to_string(options.memoryBudget) +
                          " bytes per thread"
                    : std::string("holding less than the estimate above when they replay")) +
               "\n";
    }
    if (!p.sharedAdjoints.empty())
      out += "  adjoints the threads share (in global or __shared__ memory), and how each "
             "addition is made:\n";
    for (const SharedAdjoint &a : p.sharedAdjoints)
      out += "    " + a.target +
             (a.pos.line ? " (line " + std::to_string(a.pos.line) + ")" : std::string()) +
             ": " + a.how +
             "\n      " + a.reason + "\n";
    if (p.launchParts != kAllParts || p.launchLimits.any())
      out += "    the plain additions hold for a launch that varies only in " +
             describeParts(p.launchParts) +
             (p.launchLimits.any() ? ", with " + p.launchLimits.describe() : std::string()) +
             "; the gradient stops with a message on any other\n";
    for (const LoopDecision &l : p.loops) {
      std::string trips =
          l.trips >= 0 ? std::to_string(l.trips) + " iterations"
          : l.tripSource == "profile"
              ? "trip count known at run time; " + num("%.1f", l.estimatedTrips) +
                    " iterations per start in the profile"
              : "trip count known at run time; " + num("%.0f", l.estimatedTrips) + " assumed";
      out += "  " + l.label + " (line " + std::to_string(l.pos.line) + ", " + trips + "): " +
             l.strategy + (l.reason.empty() ? "" : "\n      " + l.reason) + "\n";
      if (l.tapeBytes > 0)
        out += "      it tapes " + bytesText(l.bytesPerIteration()) + " per iteration (" +
               bytesText(l.tapeBytes) + " per call" +
               (l.snapshotBytes > 0 ? "), a snapshot of its state takes " +
                                           bytesText(l.snapshotBytes)
                                     : std::string(")")) +
               ", and one run of it " +
               num("%.1f%%", p.primalCost > 0 ? 100.0 * l.cost / p.primalCost : 0.0) +
               " of the primal's time\n";
    }
  }
  return out;
}

std::string inputPlanJson(const InputPlans &in) {
  nlohmann::json functions = nlohmann::json::array();
  for (const FunctionPlan &p : in.plans) {
    nlohmann::json values = nlohmann::json::array(), loops = nlohmann::json::array();
    for (const ValueDecision &v : p.values) {
      unsigned overwritten = overwrittenLine(v);
      values.push_back({{"name", sourceName(*v.var)},
                        {"line", v.definitionPos.line},
                        {"overwritten_line", overwritten ? nlohmann::json(overwritten)
                                                         : nlohmann::json()},
                        {"type", v.var->elem.spelling},
                        {"decision", v.reloaded   ? "reload"
                                     : v.inverted ? "invert"
                                     : v.recompute ? "recompute"
                                                   : "store"},
                        {"candidate", v.candidate},
                        {"reason", v.reason},
                        {"runs", v.runs},
                        {"bytes", v.bytes},
                        {"recompute_cost", v.cost},
                        {"G", v.G},
                        {"T", v.T},
                        {"M", v.M},
                        {"score", v.score}});
    }
    for (const LoopDecision &l : p.loops)
      loops.push_back({{"label", l.label},
                       {"line", l.pos.line},
                       {"trips", l.trips >= 0 ? nlohmann::json(l.trips) : nlohmann::json()},
                       {"estimated_trips", l.estimatedTrips},
                       {"trip_source", l.tripSource},
                       {"runs", l.runs},
                       {"strategy", l.strategy},
                       {"reason", l.reason},
                       {"replay_share", l.replayShare},
                       {"tape_share", l.tapeShare},
                       {"freed_share", l.freedShare},
                       {"time_share", l.timeShare},
                       {"run_time_plan", l.runTimePlan},
                       {"end_line", l.endLine},
                       {"tape_bytes", l.tapeBytes},
                       {"store_all_bytes", l.storeAllBytes},
                       {"bytes_per_iteration", l.bytesPerIteration()},
                       {"snapshot_bytes",
                        l.snapshotBytes >= 0 ? nlohmann::json(l.snapshotBytes) : nlohmann::json()},
                       {"cost", l.cost},
                       {"time_fraction", p.primalCost > 0 ? l.cost / p.primalCost : 0.0}});
    nlohmann::json shared = nlohmann::json::array();
    for (const SharedAdjoint &a : p.sharedAdjoints)
      shared.push_back({{"target", a.target}, {"line", a.pos.line}, {"how", a.how},
                        {"reason", a.reason}});
    functions.push_back({{"name", p.function},
                         {"device", p.device},
                         {"shared_adjoints", shared},
                         {"launch_parts", p.device ? nlohmann::json(describeParts(p.launchParts))
                                                   : nlohmann::json()},
                         {"launch_limits", p.device ? nlohmann::json(p.launchLimits.describe())
                                                    : nlohmann::json()},
                         {"kind", p.isKernel ? "kernel" : "helper"},
                         {"line", p.pos.line},
                         {"end_line", std::max(p.endLine, p.pos.line)},
                         {"profiled", p.profiled},
                         {"primal_cost", p.primalCost},
                         {"store_all_bytes", p.storeAllBytes},
                         {"planned_bytes", p.plannedBytes},
                         {"recompute_cost", p.recomputeCost},
                         {"recompute_fraction",
                          p.primalCost > 0 ? p.recomputeCost / p.primalCost : 0.0},
                         {"values", values},
                         {"loops", loops}});
  }
  nlohmann::json object = {{"file", in.input}, {"functions", functions}};
  return object.dump();
}

std::string planDocument(const std::vector<std::string> &inputObjects, const PlanOptions &options,
                         const std::string &toolVersion) {
  nlohmann::json doc;
  doc["tool"] = "cgp-ad";
  doc["version"] = toolVersion;
  doc["strategy"] = options.storeAll ? "store-all" : "cgp";
  doc["weights"] = {{"alpha", options.alpha}, {"beta", options.beta}, {"gamma", options.gamma}};
  doc["recompute_allowance"] = options.recomputeAllowance;
  doc["replay_allowance"] = options.memoryBudget < 0 ? options.replayAllowance : 0.0;
  doc["default_trip_count"] = kDefaultTripCount;
  doc["inputs"] = nlohmann::json::array();
  for (const std::string &object : inputObjects)
    doc["inputs"].push_back(nlohmann::json::parse(object));
  return doc.dump(2) + "\n";
}

} // namespace cgp
