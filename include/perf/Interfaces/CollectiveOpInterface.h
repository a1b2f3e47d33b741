//===- CollectiveOpInterface.h ----------------------------------*- C++ -*-===//

#ifndef PERF_INTERFACES_COLLECTIVEOPINTERFACE_H
#define PERF_INTERFACES_COLLECTIVEOPINTERFACE_H

#include "mlir/IR/OpDefinition.h"
#include "perf/Support/KernelDesc.h"

namespace perf {
/// The cost models' element type of an MLIR type (f32 for anything else).
DType getDType(mlir::Type type);
} // namespace perf

#include "perf/Interfaces/CollectiveOpInterface.h.inc"

#endif // PERF_INTERFACES_COLLECTIVEOPINTERFACE_H
