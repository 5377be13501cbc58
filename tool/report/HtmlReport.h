//===- HtmlReport.h - --report=FILE.html ------------------------*- C++ -*-===//
//
// A self-contained HTML page of the kernels and their plans, for people who
// want to see at a glance what cgp-ad stores, recomputes and checkpoints.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_REPORT_HTMLREPORT_H
#define CGP_REPORT_HTMLREPORT_H

#include "planner/CostModel.h"

#include <string>
#include <vector>

namespace cgp {

/// The section of one input: `planJsonObject` is its inputPlanJson();
/// `memoryBudget` is --memory-budget's bytes, or -1.
std::string inputReportHtml(int index, const std::string &planJsonObject,
                            const std::string &sourceText, const std::string &generatedText,
                            long memoryBudget);

/// The whole page around the sections of every input.
std::string reportDocument(const std::vector<std::string> &inputSections,
                           const std::string &optionsText, const std::string &toolVersion);

} // namespace cgp

#endif // CGP_REPORT_HTMLREPORT_H
