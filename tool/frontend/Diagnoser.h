//===- Diagnoser.h - user-facing errors of cgp-ad ---------------*- C++ -*-===//
//
// Errors and warnings go through Clang's DiagnosticsEngine, so they come out
// in Clang's format (file:line:col: error: message, the source line and a
// caret) and count towards the exit status like Clang's own.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_FRONTEND_DIAGNOSER_H
#define CGP_FRONTEND_DIAGNOSER_H

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"

#include <string>

namespace cgp {

class Diagnoser {
public:
  explicit Diagnoser(clang::DiagnosticsEngine &engine) : engine_(engine) {}

  void error(clang::SourceLocation loc, const std::string &message) {
    report(clang::DiagnosticsEngine::Error, loc, message);
  }
  void warning(clang::SourceLocation loc, const std::string &message) {
    report(clang::DiagnosticsEngine::Warning, loc, message);
  }
  void note(clang::SourceLocation loc, const std::string &message) {
    report(clang::DiagnosticsEngine::Note, loc, message);
  }
  bool hasErrors() const { return engine_.hasErrorOccurred(); }
  clang::SourceManager &sourceManager() { return engine_.getSourceManager(); }

private:
  void report(clang::DiagnosticsEngine::Level level, clang::SourceLocation loc,
              const std::string &message) {
    // Point at the place the user wrote, not inside a macro definition.
    if (loc.isValid() && loc.isMacroID() && engine_.hasSourceManager())
      loc = engine_.getSourceManager().getExpansionLoc(loc);
    unsigned id = engine_.getCustomDiagID(level, "%0");
    engine_.Report(loc, id) << message;
  }

  clang::DiagnosticsEngine &engine_;
};

} // namespace cgp

#endif // CGP_FRONTEND_DIAGNOSER_H
