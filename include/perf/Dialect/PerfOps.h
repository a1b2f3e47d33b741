//===- PerfOps.h - perf dialect operations ----------------------*- C++ -*-===//

#ifndef PERF_DIALECT_PERFOPS_H
#define PERF_DIALECT_PERFOPS_H

#include "perf/Dialect/PerfAttrs.h"
#include "perf/Dialect/PerfDialect.h"
#include "perf/Interfaces/KernelOpInterface.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "perf/Dialect/PerfOps.h.inc"

namespace perf {
/// True for the collective and point-to-point ops.
bool isCollective(mlir::Operation *op);
/// Participants of a collective op (its `group`).
llvm::ArrayRef<int64_t> getCollectiveGroup(mlir::Operation *op);
/// Bytes per device of a collective op.
int64_t getCollectiveBytes(mlir::Operation *op);
/// Stream a collective op runs on.
int64_t getCollectiveStream(mlir::Operation *op);
/// The cost models' element type of an MLIR type (f32 for anything else),
/// and back.
DType getDType(mlir::Type type);
mlir::Type getElementType(mlir::MLIRContext *context, DType dtype);
/// Whether `op` carries a latency measured on hardware (an imported trace),
/// which no cost model may overwrite.
bool hasMeasuredLatency(mlir::Operation *op);
} // namespace perf

#endif // PERF_DIALECT_PERFOPS_H
