//===- InputDiagnostics.h - Input errors as MLIR diagnostics ----*- C++ -*-===//
//
// Passes and importers that read a file report its errors through MLIR's
// diagnostics, in the one error format (perf/Support/InputError.h): an
// error in a file is emitted at its place there (`file:line:col: error:
// message`, line 0 for the file as a whole); any other at `fallback`, the op
// it concerns.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_DIALECT_INPUTDIAGNOSTICS_H
#define PERF_DIALECT_INPUTDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/Error.h"
#include <string>

namespace perf {

/// Emits every error in `error` (see above).
void emitInputError(mlir::Location fallback, llvm::Error error);

/// Makes the diagnostics of `context` that have no place (a pass option
/// checked in the pass's initialize(), before any op runs) print as the
/// tools' other errors without one: `tool: error: message` on stderr,
/// instead of MLIR's `<unknown>:0:` prefix. Located ones go on to the
/// handlers registered before. Returns the handler's id, for a caller
/// that erases it again.
mlir::DiagnosticEngine::HandlerID
printUnlocatedDiagnosticsAs(mlir::MLIRContext *context, llvm::StringRef tool);

/// The error diagnostics of a context while alive, joined with "; ": what a
/// reader that answers with an llvm::Error says when the IR it parsed or
/// built was refused.
class CollectedErrors {
public:
  explicit CollectedErrors(mlir::MLIRContext *context);
  const std::string &text() const { return errors; }

private:
  std::string errors;
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace perf

#endif // PERF_DIALECT_INPUTDIAGNOSTICS_H
