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
#include "perf/Support/KernelDesc.h"
#include "perf/Support/Limits.h"

#define GET_OP_CLASSES
#include "perf/Dialect/PerfOps.h.inc"

namespace perf {
/// The cost-model dtype of an MLIR element type.
DType getDType(mlir::Type type);
/// The MLIR element type of a cost-model dtype (getDType's inverse).
mlir::Type getElementType(mlir::MLIRContext *context, DType dtype);
/// Whether `work` carries a latency measured on hardware (an imported
/// trace), which no cost model may overwrite: as measured, or moved from the
/// GPU it was measured on to the graph's target (perf.measured_latency_us).
bool hasMeasuredLatency(WorkAttr work);
/// The runtime function that launches `work`: cudaMemcpyAsync for a copy,
/// cudaLaunchKernel otherwise. A kernel a trace saw launched by another
/// function says so (perf.launch_call).
llvm::StringRef defaultLaunchCall(WorkAttr work);

/// The kernel `desc` describes: the inverse of WorkAttr::getKernelDesc, and
/// the one place kernels are built from a description. A typed kind whose
/// FLOPs or bytes are overridden becomes a generic kernel.
/// - Null when `desc` describes no kernel: sizes the kind does not accept
///   (KernelDesc::hasValidSizes), or an optimizer's `op` that is not an
///   algorithm perf.optimizer knows. A caller leaves the kernel out.
/// - Failure when a field is beyond what the kind's schema allows (a size
///   above max-extent): an error, reported through `emitError` (at an
///   unknown location when none is given). A caller fails.
mlir::FailureOr<WorkAttr> buildKernelWork(
    mlir::MLIRContext *context, const KernelDesc &desc,
    llvm::function_ref<mlir::InFlightDiagnostic()> emitError = nullptr);

/// The collective `desc` describes over `group`, as buildKernelWork:
/// - Null for a kind the dialect has no work kind for (a broadcast, a
///   send/receive), a size that is not positive or an empty group. A caller
///   leaves it out.
/// - Failure when a size is beyond what the kind's schema allows (above
///   max-extent): an error, reported through `emitError` (at an unknown
///   location when none is given). A caller fails.
mlir::FailureOr<WorkAttr> buildCollectiveWork(
    mlir::MLIRContext *context, const CollectiveDesc &desc,
    llvm::ArrayRef<int64_t> group,
    llvm::function_ref<mlir::InFlightDiagnostic()> emitError = nullptr);
} // namespace perf

#endif // PERF_DIALECT_PERFOPS_H
