//===- DistributedUtils.h - Helpers of the distributed passes ---*- C++ -*-===//
//
// What the parallelism, communication and breakdown passes share: the system
// a graph runs on, the collectives it launches, gradient sizes, and builders
// of ops that launch one collective.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRANSFORMS_DISTRIBUTEDUTILS_H
#define PERF_TRANSFORMS_DISTRIBUTEDUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"
#include "perf/Comm/SystemSpec.h"
#include "perf/Dialect/PerfOps.h"
#include <optional>

namespace perf {

/// The framework op of each DDP gradient bucket (--perf-data-parallel), and
/// what --perf-zero turns it into; the memory analysis reads both.
constexpr llvm::StringLiteral kDdpBucketOpName = "ddp::all_reduce";
constexpr llvm::StringLiteral kZeroReduceScatterOpName = "zero::reduce_scatter";

/// One node of `gpu` with `gpus` GPUs: NVLink between them when the GPU has
/// NVLink (its aggregate bandwidth per GPU), PCIe otherwise.
SystemSpec singleNodeSystem(const GpuSpec &gpu, unsigned gpus);

/// The system `graph` runs on: `presetOrPath` when given (a preset name or a
/// system JSON file), else one node of the graph's GPU big enough for every
/// device the graph uses (up to `maxDevice`, maxDeviceId(graph) when not
/// given). Errors are emitted on the graph.
mlir::FailureOr<SystemSpec>
getGraphSystem(GraphOp graph, llvm::StringRef presetOrPath,
               std::optional<int64_t> maxDevice = std::nullopt);

/// The highest device id a graph's ops name (their own device, a kernel's,
/// a collective group's), gathered op by op in a walk a pass makes anyway.
class MaxDeviceId {
public:
  /// Counts the device `op` runs on. Cheap for a run of ops on one device
  /// (the attribute is uniqued: each is read once in a row).
  void addOpDevice(FrameworkOp op) {
    if (mlir::IntegerAttr device = op.getDeviceAttr(); device != lastDevice) {
      maxId = std::max<int64_t>(maxId, op.getDevice());
      lastDevice = device;
    }
  }
  /// Counts the devices `work` runs on: once per distinct work list is
  /// enough (a step launches few).
  void addWork(llvm::ArrayRef<WorkAttr> work);
  int64_t get() const { return maxId; }

private:
  int64_t maxId = 0;
  mlir::IntegerAttr lastDevice;
};

/// Highest device id any op, kernel or collective group of `graph` names.
int64_t maxDeviceId(GraphOp graph);

/// Size in bytes of one element of `type` (2 for f16/bf16...); 4 when
/// unknown.
int64_t elementBytes(mlir::Type type);
/// Bytes of a ranked tensor value; 0 for anything else.
int64_t tensorBytes(mlir::Type type);
/// `bytes` as an int64 count, saturated one past max-extent: sizes within
/// the limits can multiply past an int64, and the passes that build
/// collectives from a count report the limit.
int64_t saturatedBytes(double bytes);

/// Whether a framework op belongs to the forward pass: every kernel it
/// launches has pass "fwd" (an op without kernels counts as forward).
bool isForwardOp(FrameworkOp op);
/// Whether a framework op is an optimizer step (it launches an optimizer
/// kernel).
bool isOptimizerOp(FrameworkOp op);

/// The element-wise kernel that follows a master-weight optimizer update
/// and writes the updated FP32 copy back to the model's 16-bit weights.
inline constexpr llvm::StringLiteral kMasterToModelFn = "master_to_model";
/// The kernel after the master-weight update `op.getWork(update)`, the next
/// piece of `op`'s work, that writes it back to the model's 16-bit weights
/// (its dtype is theirs); null for any other piece.
WorkAttr masterCopyBack(FrameworkOp op, size_t update);
/// Sets how many weights each optimizer update of `op` changes to
/// `share(elements it changed)`, and the same count on the kernel after it
/// that writes a master-weight update back to the model: the layouts that
/// split or shrink the optimizer step (tensor, pipeline and expert
/// parallelism, ZeRO) keep the two together. An update whose share is 0 or
/// less (a pipeline stage that holds no weights, experts all moved away)
/// launches nothing: it goes from the work list, with its copy back.
void shareOptimizerUpdates(FrameworkOp op,
                           llvm::function_ref<int64_t(int64_t)> share);

/// Trainable parameters an op declares: `perf.params`, else the ONNX
/// importer's `onnx.params` (absent on an imported ONNX op means none);
/// nullopt when the op says nothing (its kernels must be read).
std::optional<int64_t> declaredParameters(FrameworkOp op);
/// Of those, how many are another parameter read again (`onnx.tied_params`:
/// a tied weight the exporter copied): they get a weight gradient, added
/// into the other's, and no update of their own.
int64_t declaredTiedParameters(FrameworkOp op);

/// The type of an op's weights: its first kernel's dtype; f32 when it has
/// no kernel.
DType parameterDType(FrameworkOp op);
/// Bytes per element of an op's weights (of parameterDType).
double parameterElementBytes(FrameworkOp op);

/// Whether `op` launches one of expert parallelism's all_to_alls (it
/// carries perf.expert_exchange): their group spans the devices that hold a
/// layer's other experts, which the later layout passes place differently
/// from their own groups.
bool isExpertExchange(FrameworkOp op);

/// The degree a layout pass recorded on `graph` under `attr`
/// (kTensorParallelAttr, kExpertParallelAttr, kDataParallelAttr): 1 where
/// that layout was not applied.
int64_t layoutDegree(GraphOp graph, llvm::StringRef attr);

/// The layout passes compose in one order, as Megatron-LM builds its
/// groups: expert parallelism, then tensor parallelism, then pipeline
/// parallelism, then data parallelism (then ZeRO). `pass` (e.g.
/// "--perf-tensor-parallel") on a graph its own layout attribute `own` already
/// marks, or one of `later` (such as kDataParallelAttr), is an error naming the
/// order: the rewrite would price a layout nobody runs.
mlir::LogicalResult refuseLaterLayouts(GraphOp graph, llvm::StringRef pass,
                                       llvm::StringRef own,
                                       llvm::ArrayRef<llvm::StringRef> later);

/// How far apart --perf-data-parallel puts the replicas of a stage by
/// default, after `stages` pipeline stages `stageSpacing` devices apart (0
/// without pipeline parallelism) of tensor-parallel groups of `tpSize`: a
/// whole pipeline apart with the stages side by side, a TP group apart in
/// the gap a wider spacing leaves (Megatron-LM's rank order tp-dp-pp).
/// --perf-pipeline-parallel places the experts' all_to_alls on the same
/// replicas.
inline int64_t defaultReplicaStep(int64_t stages, int64_t stageSpacing,
                                  int64_t tpSize) {
  return stages > 1 && stageSpacing > tpSize ? tpSize : stages * tpSize;
}

/// The transformer block an op belongs to (`perf.layer`), if marked.
std::optional<int64_t> layerOf(mlir::Operation *op);

/// The number a forward op shares with the backward op autograd runs for
/// it (`perf.autograd_pair`), if marked.
std::optional<int64_t> autogradPairOf(mlir::Operation *op);

/// Gradient bytes an op produces: its `perf.grad_bytes`, else the weight
/// size of its wgrad GEMMs (m x n) and convolutions (k x c/groups x r x s).
int64_t gradientBytes(FrameworkOp op);

/// A value produced by `op` that later ops can wait on: its first result,
/// or, for an op without results, a `none` result added by rebuilding it
/// (`op` is updated to the rebuilt op).
mlir::Value ensureResult(FrameworkOp &op);

/// `0, 1, ..., n-1`.
llvm::SmallVector<int64_t> iotaGroup(int64_t n, int64_t first = 0);

/// A collective of `kind` (a collective kind) of `bytes` over `group`,
/// launched on `device` and `stream`; no dtype, no algorithm.
WorkAttr makeCollectiveWork(mlir::MLIRContext *context, WorkKind kind,
                            int64_t bytes, llvm::ArrayRef<int64_t> group,
                            int64_t device = 0, int64_t stream = 0);

/// Creates `perf.op name(inputs)` on `device` whose results have the types
/// of `inputs` (the same tensors, now available after the collective) and
/// which launches `work` (the collective).
FrameworkOp createCommOp(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::StringRef name, mlir::ValueRange inputs,
                         int64_t device, llvm::ArrayRef<WorkAttr> work);

} // namespace perf

#endif // PERF_TRANSFORMS_DISTRIBUTEDUTILS_H
