//===- TraceKernels.h - Kernels of a traced framework op --------*- C++ -*-===//
//
// Infers the device work of a PyTorch op from its name and tensor shapes,
// without MLIR: matrix multiplies (addmm, mm, bmm, linear, matmul),
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
#include "perf/Trace/ExecutionTrace.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace perf {

enum class TraceKernelKind {
  Gemm,
  EmbeddingBag,
  Elementwise,
  Reduce,
  Softmax,
  LayerNorm,
  Memcpy,
  Concat,
  Optimizer,
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  Conv2d,
  Pooling,
  BatchNorm,
};

/// One inferred kernel; only the fields of its kind are meaningful.
struct TraceKernel {
  TraceKernelKind kind = TraceKernelKind::Elementwise;
  DType dtype = DType::F32;
  /// "fwd", "bwd" (embedding backward) or "update" (optimizer).
  std::string pass = "fwd";
  // Gemm.
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool transB = false;
  // Embedding bag: `tables` of `rows` x `dim`, `bags` bags of `pooling`.
  int64_t tables = 1, rows = 0, dim = 0, bags = 0, pooling = 1;
  // Element-wise, concat, optimizer: elements; reduce/softmax/layernorm:
  // rows x cols (cols in `dim`).
  int64_t elements = 0, inputs = 1;
  double flopsPerElement = 1.0;
  std::string fn;
  // Memcpy and collectives.
  int64_t bytes = 0;
  std::string copyKind = "d2d";
  std::string algorithm = "sgd";
  /// Ranks taking part in a collective.
  int64_t groupSize = 1;
  // Conv2d (pass fwd, dgrad or wgrad) and pooling: NCHW input, K x R x S
  // filter or window; batchnorm: `elements` over `c` channels.
  int64_t c = 0, h = 0, w = 0, outChannels = 0, r = 0, s = 0;
  int64_t strideH = 1, strideW = 1, padH = 0, padW = 0;
  int64_t dilationH = 1, dilationW = 1, groups = 1;
};

/// A framework op as the rules see it: tensors with shapes and dtypes, and
/// the scalar arguments.
struct TracedTensor {
  std::vector<int64_t> shape;
  std::string dtype;
  std::string device;
  int64_t tensorId = -1;
  int64_t numel() const;
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
/// look at the op's children). A rule may apply and yield no kernel (views,
/// copies within one device that alias).
bool inferOpKernels(const TracedOp &op, int64_t worldSize,
                    std::vector<TraceKernel> &kernels);

/// Kernels of ET node `index`: its rule, or the kernels of its children.
/// `unknown` receives the names of leaf operators without a rule.
std::vector<TraceKernel> inferNodeKernels(const trace::ExecutionTrace &et,
                                          size_t index, int64_t worldSize,
                                          std::vector<std::string> *unknown);

/// The TracedOp view of an ET node.
TracedOp tracedOpFromNode(const trace::ExecNode &node);

/// The element type of an ET / profiler dtype string ("float", "c10::Half",
/// "long int", "Tensor(float)"); F32 when unknown.
DType dtypeFromTraceName(llvm::StringRef name);

/// The class `trace::classifyDeviceEvent` gives measured kernels of this kind
/// ("gemm", "embedding", "elementwise", "memcpy", "nccl", ...).
llvm::StringRef measuredClassOf(TraceKernelKind kind);

/// Whether a measured kernel of class `measured` can be the inferred kernel.
bool measuredMatches(llvm::StringRef measured, TraceKernelKind kind);

} // namespace perf

#endif // PERF_IMPORT_TRACEKERNELS_H
