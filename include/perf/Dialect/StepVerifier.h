//===- StepVerifier.h - Verifying a module of perf graphs -------*- C++ -*-===//
//
// MLIR's verifier checks every op of a graph on its own: the op's ODS
// invariants and its verifier, each trait, its regions and successors, the
// dialect's checks of its attributes. A million-kernel step is a million
// perf.ops, and nearly all of them repeat a handful of property tuples
// (an op name, a device, a uniqued work list): checking each tuple once
// takes a fifth of MLIR's time. This verifier proves a module valid that
// way, and on anything it cannot prove (an error, an op it does not know,
// an attribute of another dialect) leaves the answer, and every
// diagnostic, to MLIR's verifier.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_DIALECT_STEPVERIFIER_H
#define PERF_DIALECT_STEPVERIFIER_H

#include "mlir/IR/BuiltinOps.h"

namespace perf {

/// Verifies `module` as `mlir::verify(module)` does: the same answer, and
/// on failure the same diagnostics, which MLIR's verifier emits.
mlir::LogicalResult verifyStep(mlir::ModuleOp module);

/// verifyStep for a reader that reads the graphs' bodies last (MLIR's
/// lazy loading, as `perf-opt --estimate` reads bytecode): the module's own
/// checks, whose symbol table walks every op below it for symbol uses, run
/// on the top level while the bodies are still unread, and the graphs once
/// they are read.
class StepVerifier {
public:
  /// Checks the file's top level, `ops`, before the graphs' bodies are
  /// read: a module op's own invariants and symbol table. Says nothing; any
  /// doubt is settled by verify.
  void checkTopLevel(mlir::Block &ops);

  /// Verifies `module` once everything is read, as verifyStep does.
  mlir::LogicalResult verify(mlir::ModuleOp module);

private:
  /// The module whose own checks passed in checkTopLevel.
  mlir::Operation *checkedModule = nullptr;
};

} // namespace perf

#endif // PERF_DIALECT_STEPVERIFIER_H
