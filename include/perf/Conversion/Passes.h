//===- Passes.h - Conversions into the perf dialect -------------*- C++ -*-===//

#ifndef PERF_CONVERSION_PASSES_H
#define PERF_CONVERSION_PASSES_H

#include "perf/Dialect/PerfDialect.h"
#include "mlir/Pass/Pass.h"

namespace perf {

#define GEN_PASS_DECL
#include "perf/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "perf/Conversion/Passes.h.inc"

} // namespace perf

#endif // PERF_CONVERSION_PASSES_H
