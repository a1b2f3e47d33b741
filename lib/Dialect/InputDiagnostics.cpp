//===- InputDiagnostics.cpp - Input errors as MLIR diagnostics ------------===//

#include "perf/Dialect/InputDiagnostics.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "perf/Support/InputError.h"

using namespace mlir;

void perf::emitInputError(Location fallback, llvm::Error error) {
  llvm::handleAllErrors(
      std::move(error),
      [&](const InputError &e) {
        if (e.line == 0) {
          emitError(fallback) << e.message << " (" << e.path << ")";
          return;
        }
        emitError(FileLineColLoc::get(fallback.getContext(), e.path, e.line,
                                      e.column))
            << e.message;
      },
      [&](const llvm::ErrorInfoBase &e) {
        emitError(fallback) << e.message();
      });
}
