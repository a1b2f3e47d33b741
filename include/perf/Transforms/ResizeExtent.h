//===- ResizeExtent.h - One extent through kernels and types -*- C++ -*-===//
//
// A size of the step (the batch, the tokens an expert receives) appears in
// tensor shapes and kernel sizes, sometimes folded with another dimension
// (batch x sequence rows of a GEMM). What --perf-resize-batch and
// --perf-expert-parallel share: scaling every size that holds it.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRANSFORMS_RESIZEEXTENT_H
#define PERF_TRANSFORMS_RESIZEEXTENT_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "perf/Dialect/PerfOps.h"
#include <optional>

namespace perf {

/// Scales an extent from `from` to `to`.
struct ExtentScaler {
  int64_t from, to;
  /// Whether `v` holds the extent (equal to it or a multiple of it).
  bool holds(int64_t v) const { return v >= from && v % from == 0; }
  /// `v` with the new extent; nullopt above max-extent (or an int64).
  std::optional<int64_t> scale(int64_t v) const;
};

/// `type` with the extent scaled: a dimension equal to it, else (unless
/// `exactOnly`) a leading dimension that is a multiple of it.
mlir::Type resizeType(mlir::Type type, const ExtentScaler &s,
                      bool exactOnly = false);

/// Scales the sizes that hold the extent in each kernel and collective `op`
/// launches (a GEMM's batch or the m, n or k equal to it, else a multiple;
/// rows, elements, bytes; a generic kernel's FLOPs, bytes and measured time)
/// and drops the latency each changed one was priced at. Optimizer updates
/// keep their size. Emits an error on `op` naming `pass` and fails past
/// max-extent.
mlir::LogicalResult resizeWorkExtent(FrameworkOp op, const ExtentScaler &s,
                                     llvm::StringRef pass);

} // namespace perf

#endif // PERF_TRANSFORMS_RESIZEEXTENT_H
