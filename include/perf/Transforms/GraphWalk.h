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
/// graph it fails on. A graph's body is not searched: it holds up to
/// millions of host ops, and no graph (a symbol, whose parent must be a
/// symbol table).
inline mlir::LogicalResult
forEachGraph(mlir::Operation *root,
             llvm::function_ref<mlir::LogicalResult(GraphOp)> body) {
  return mlir::failure(
      root->walk<mlir::WalkOrder::PreOrder>([&](mlir::Operation *op) {
            auto graph = llvm::dyn_cast<GraphOp>(op);
            if (!graph)
              return mlir::WalkResult::advance();
            return mlir::failed(body(graph)) ? mlir::WalkResult::interrupt()
                                             : mlir::WalkResult::skip();
          })
          .wasInterrupted());
}

} // namespace perf

#endif // PERF_TRANSFORMS_GRAPHWALK_H
