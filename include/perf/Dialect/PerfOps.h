//===- PerfOps.h - perf dialect operations ----------------------*- C++ -*-===//

#ifndef PERF_DIALECT_PERFOPS_H
#define PERF_DIALECT_PERFOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "perf/Dialect/PerfAttrs.h"
#include "perf/Dialect/PerfDialect.h"
#include "perf/Interfaces/CollectiveOpInterface.h"
#include "perf/Interfaces/KernelOpInterface.h"
#include "perf/Support/Limits.h"

#define GET_OP_CLASSES
namespace perf {
namespace detail {
/// The checks every kernel op shares beyond its ODS constraints.
mlir::LogicalResult verifyKernelOp(mlir::Operation *op);
} // namespace detail
namespace OpTrait {
/// Runs detail::verifyKernelOp on a kernel op (PerfOps.td, KernelVerifier).
template <typename ConcreteType>
class KernelVerifier
    : public mlir::OpTrait::TraitBase<ConcreteType, KernelVerifier> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return detail::verifyKernelOp(op);
  }
};
} // namespace OpTrait
} // namespace perf

#include "perf/Dialect/PerfOps.h.inc"

namespace perf {
/// The MLIR element type of a cost-model dtype (getDType's inverse).
mlir::Type getElementType(mlir::MLIRContext *context, DType dtype);
/// Whether `op` carries a latency measured on hardware (an imported trace),
/// which no cost model may overwrite: as measured, or moved from the GPU it
/// was measured on to the graph's target (perf.measured_latency_us).
bool hasMeasuredLatency(mlir::Operation *op);
/// The training pass of a kernel op (fwd when not set, or not a kernel).
TrainingPass getTrainingPass(mlir::Operation *op);
/// The runtime function that launches device work of `op`'s kind:
/// cudaMemcpyAsync for a copy, cudaLaunchKernel otherwise. A kernel a trace
/// saw launched by another function says so (perf.launch_call).
llvm::StringRef defaultLaunchCall(mlir::Operation *op);

/// Creates the kernel op `desc` describes at the builder's insertion point:
/// the inverse of KernelOpInterface::getKernelDesc, and the one place kernel
/// ops are built from a description. A typed kind whose FLOPs or bytes are
/// overridden becomes a generic kernel. Returns null, creating nothing, when
/// the sizes are not ones the op accepts (KernelDesc::hasValidSizes) or an
/// optimizer's `op` is not an algorithm perf.optimizer knows.
KernelOpInterface buildKernelOp(mlir::OpBuilder &builder, mlir::Location loc,
                                const KernelDesc &desc);

/// Creates the collective op of `desc` over `group` (null for a kind the
/// dialect has no op for, or a non-positive size).
mlir::Operation *buildCollectiveOp(mlir::OpBuilder &builder,
                                   mlir::Location loc,
                                   const CollectiveDesc &desc,
                                   llvm::ArrayRef<int64_t> group);
} // namespace perf

#endif // PERF_DIALECT_PERFOPS_H
