//===- EstimateBaseline.h - The estimate before a transform -----*- C++ -*-===//
//
// Transforms that answer what-if questions keep the estimate that was made
// before them so `--perf-compare` can print before and after:
//   perf-opt --estimate --perf-fuse-embeddings --estimate --perf-compare m.mlir
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRANSFORMS_ESTIMATEBASELINE_H
#define PERF_TRANSFORMS_ESTIMATEBASELINE_H

#include "perf/Dialect/PerfOps.h"

namespace perf {

/// Records `graph`'s current estimate as the baseline (unless one is already
/// recorded), drops the estimate, which the transform makes stale, and
/// appends `transform` to the graph's list of transforms.
void recordBaseline(GraphOp graph, llvm::StringRef transform);
} // namespace perf

#endif // PERF_TRANSFORMS_ESTIMATEBASELINE_H
