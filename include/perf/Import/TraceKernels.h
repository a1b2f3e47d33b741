//===- TraceKernels.h - Kernels of a traced framework op --------*- C++ -*-===//
//
// Infers the device work of a PyTorch op from its name and tensor shapes,
// without MLIR, as KernelDesc / CollectiveDesc. The rules form one table,
// ATen op name -> rule (TraceKernels.cpp); adding an op is one entry there.
// Covered: matrix multiplies (addmm, mm, bmm, linear, matmul),
// embedding lookups, concatenation, copies between devices, element-wise
// ops, reductions, softmax and layer norm, losses, optimizer updates and
// collectives recorded by record_param_comms. Ops with no rule of their own
// (autograd nodes such as AddmmBackward0, composite ops such as
// cross_entropy_loss) take the kernels of the ops the Execution Trace
// records under them.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_IMPORT_TRACEKERNELS_H
#define PERF_IMPORT_TRACEKERNELS_H

#include "perf/Support/DType.h"
#include "perf/Support/KernelDesc.h"
#include "perf/Trace/ExecutionTrace.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace perf {

/// The element strides of a row-major tensor of `shape` (PyTorch's: a
/// dimension of size 0 steps as one of size 1).
std::vector<int64_t> contiguousStrides(llvm::ArrayRef<int64_t> shape);

/// A framework op as the rules see it: tensors with shapes and dtypes, and
/// the scalar arguments.
struct TracedTensor {
  std::vector<int64_t> shape;
  /// Element strides where known (empty: contiguous as far as is known).
  std::vector<int64_t> strides;
  std::string dtype;
  std::string device;
  int64_t tensorId = -1;
  int64_t numel() const;
  /// Whether the elements lie in row-major order without gaps: no strides
  /// known, or strides those of a contiguous tensor of the shape (dimensions
  /// of size 1 may have any stride, as PyTorch's is_contiguous has it).
  bool isContiguous() const;
};

struct TracedOp {
  std::string name;
  std::vector<TracedTensor> inputs;
  std::vector<TracedTensor> outputs;
  std::vector<std::string> inputTypes;
  /// Scalar arguments in argument order (null where a tensor was).
  std::vector<llvm::json::Value> scalars;
};

/// The rule for `op` alone; false when no rule applies (the caller may then
/// look at the op's children). A rule may apply and yield no work (views,
/// copies within one device that alias).
bool inferOpKernels(const TracedOp &op, int64_t worldSize,
                    std::vector<DeviceWork> &work);

/// Device work of ET node `index`: its rule, or the work of its children.
/// `unknown` receives the names of leaf operators without a rule.
std::vector<DeviceWork> inferNodeKernels(const trace::ExecutionTrace &et,
                                         size_t index, int64_t worldSize,
                                         std::vector<std::string> *unknown);

/// The TracedOp view of an ET node.
TracedOp tracedOpFromNode(const trace::ExecNode &node);

/// The element type of an ET / profiler dtype string ("float", "c10::Half",
/// "long int", "Tensor(float)"); F32 when unknown.
DType dtypeFromTraceName(llvm::StringRef name);

/// The class `trace::classifyDeviceEvent` gives measured work of this kind
/// ("gemm", "embedding", "elementwise", "memcpy", "nccl", ...).
llvm::StringRef measuredClassOf(const DeviceWork &work);

/// Whether a measured kernel of class `measured` can be `work`.
bool measuredMatches(llvm::StringRef measured, const DeviceWork &work);

} // namespace perf

#endif // PERF_IMPORT_TRACEKERNELS_H
