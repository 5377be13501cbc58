//===- Explain.h - the plan, for people and for programs ---------*- C++ -*-===//
//
// --explain prints the plan of every differentiated function: the values
// the reverse sweep needs, which are stored, which recomputed and which
// restored by the inverse update (integer counters), with the
// terms and score of each decision, how each loop is reversed, and the
// estimated tape bytes and recompute cost. --plan-json=FILE writes the same
// as JSON (schema in docs/cgp-model.md).
//
//===----------------------------------------------------------------------===//
#ifndef CGP_REPORT_EXPLAIN_H
#define CGP_REPORT_EXPLAIN_H

#include "planner/Planner.h"

#include <string>
#include <vector>

namespace cgp {

/// The plans made for one input file.
struct InputPlans {
  std::string input;
  std::vector<FunctionPlan> plans;
};

std::string explainText(const InputPlans &input, const PlanOptions &options);
/// The JSON object of one input's plans (made while its IR is alive).
std::string inputPlanJson(const InputPlans &input);
/// The --plan-json document around the objects of every input.
std::string planDocument(const std::vector<std::string> &inputObjects, const PlanOptions &options,
                         const std::string &toolVersion);

} // namespace cgp

#endif // CGP_REPORT_EXPLAIN_H
