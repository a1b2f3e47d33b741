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

} // namespace perf

#endif // PERF_DIALECT_STEPVERIFIER_H
