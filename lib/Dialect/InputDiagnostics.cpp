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

perf::CollectedErrors::CollectedErrors(MLIRContext *context)
    : handler(context, [this](Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Error)
          errors += (errors.empty() ? "" : "; ") + d.str();
        return success();
      }) {}

mlir::DiagnosticEngine::HandlerID
perf::printUnlocatedDiagnosticsAs(mlir::MLIRContext *context,
                                  llvm::StringRef tool) {
  return context->getDiagEngine().registerHandler(
      [name = tool.str()](mlir::Diagnostic &d) -> mlir::LogicalResult {
        if (!mlir::isa<mlir::UnknownLoc>(d.getLocation()))
          return mlir::failure();
        llvm::StringRef severity =
            d.getSeverity() == mlir::DiagnosticSeverity::Error     ? "error"
            : d.getSeverity() == mlir::DiagnosticSeverity::Warning ? "warning"
            : d.getSeverity() == mlir::DiagnosticSeverity::Remark  ? "remark"
                                                                   : "note";
        llvm::errs() << name << ": " << severity << ": " << d.str() << "\n";
        return mlir::success();
      });
}
