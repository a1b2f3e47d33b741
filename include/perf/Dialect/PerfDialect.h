//===- PerfDialect.h - The perf dialect -------------------------*- C++ -*-===//

#ifndef PERF_DIALECT_PERFDIALECT_H
#define PERF_DIALECT_PERFDIALECT_H

#include "mlir/IR/Dialect.h"

#include "perf/Dialect/PerfOpsDialect.h.inc"

#endif // PERF_DIALECT_PERFDIALECT_H
