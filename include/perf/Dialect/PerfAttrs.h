//===- PerfAttrs.h - perf dialect attributes --------------------*- C++ -*-===//

#ifndef PERF_DIALECT_PERFATTRS_H
#define PERF_DIALECT_PERFATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "perf/Support/GpuSpec.h"
#include "perf/Support/KernelDesc.h"
#include "llvm/ADT/Hashing.h"

namespace perf {
bool operator==(const GpuSpec &a, const GpuSpec &b);
llvm::hash_code hash_value(const GpuSpec &spec);
} // namespace perf

#include "perf/Dialect/PerfEnums.h.inc"

#define GEN_WORK_KIND_ENUM
#include "perf/Dialect/WorkKinds.h.inc"

#define GET_ATTRDEF_CLASSES
#include "perf/Dialect/PerfAttrs.h.inc"

// A typed view of #perf.work per kind (GemmWork, ...), from WorkKinds.td.
#define GEN_WORK_VIEWS
#include "perf/Dialect/WorkKinds.h.inc"

#endif // PERF_DIALECT_PERFATTRS_H
