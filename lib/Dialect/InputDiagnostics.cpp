//===- InputDiagnostics.cpp - Input errors as MLIR diagnostics ------------===//

#include "perf/Dialect/InputDiagnostics.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "perf/Support/InputError.h"

using namespace mlir;

void perf::emitInputError(Location fallback, llvm::Error error) {
  llvm::handleAllErrors(
      std::move(error),
      [&](const InputError &e) {
        // Line 0: the file as a whole.
        emitError(FileLineColLoc::get(fallback.getContext(), e.path, e.line,
                                      e.column))
            << e.message;
      },
      [&](const llvm::ErrorInfoBase &e) {
        emitError(fallback) << e.message();
      });
}
