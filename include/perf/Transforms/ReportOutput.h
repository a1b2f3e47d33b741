//===- ReportOutput.h - Where the report passes write -----------*- C++ -*-===//

#ifndef PERF_TRANSFORMS_REPORTOUTPUT_H
#define PERF_TRANSFORMS_REPORTOUTPUT_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"

namespace perf {
/// Writes a rendered report to `path`: "-" is stdout, an empty path writes
/// nothing. A file that cannot be written is an error on `op`.
mlir::LogicalResult writeReport(mlir::Operation *op, llvm::StringRef path,
                                llvm::StringRef text);
} // namespace perf

#endif // PERF_TRANSFORMS_REPORTOUTPUT_H
