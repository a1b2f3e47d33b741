//===- GraphWalk.h - Running a pass graph by graph --------------*- C++ -*-===//
//
// Most passes rewrite or analyse each perf.graph of a module on its own and
// stop at the first graph they cannot handle (its error already emitted).
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRANSFORMS_GRAPHWALK_H
#define PERF_TRANSFORMS_GRAPHWALK_H

#include "mlir/Support/LLVM.h"
#include "perf/Dialect/PerfOps.h"

namespace perf {

/// Runs `body` on every perf.graph under `root` in order; fails at the first
/// graph it fails on.
inline mlir::LogicalResult
forEachGraph(mlir::Operation *root,
             llvm::function_ref<mlir::LogicalResult(GraphOp)> body) {
  return mlir::failure(root->walk([&](GraphOp graph) {
                             return mlir::failed(body(graph))
                                        ? mlir::WalkResult::interrupt()
                                        : mlir::WalkResult::advance();
                           })
                           .wasInterrupted());
}

} // namespace perf

#endif // PERF_TRANSFORMS_GRAPHWALK_H
