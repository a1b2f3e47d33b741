//===- InputDiagnostics.h - Input errors as MLIR diagnostics ----*- C++ -*-===//
//
// Passes and importers that read a file report its errors through MLIR's
// diagnostics, in the one error format (perf/Support/InputError.h): an
// error with a place in the file is emitted at that place
// (`file:line:col: error: message`); any other at `fallback`, the op or file
// it concerns, naming the path.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_DIALECT_INPUTDIAGNOSTICS_H
#define PERF_DIALECT_INPUTDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/Error.h"

namespace perf {

/// Emits every error in `error` (see above).
void emitInputError(mlir::Location fallback, llvm::Error error);

} // namespace perf

#endif // PERF_DIALECT_INPUTDIAGNOSTICS_H
