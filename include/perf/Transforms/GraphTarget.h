//===- GraphTarget.h - The GPU a graph runs on ------------------*- C++ -*-===//

#ifndef PERF_TRANSFORMS_GRAPHTARGET_H
#define PERF_TRANSFORMS_GRAPHTARGET_H

#include "perf/Dialect/PerfOps.h"
#include "mlir/Support/LLVM.h"

namespace perf {
/// The GPU of `graph`'s target; emits a located error naming the fix when
/// the graph has none.
mlir::FailureOr<GpuSpec> getGraphGpu(GraphOp graph);
} // namespace perf

#endif // PERF_TRANSFORMS_GRAPHTARGET_H
