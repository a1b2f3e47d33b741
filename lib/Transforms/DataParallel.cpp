//===- DataParallel.cpp - --perf-data-parallel ----------------------------===//
//
// Data parallelism as PyTorch DDP runs it: gradients are reduced in buckets
// while the backward pass goes on. The replicas are symmetric, so one replica
// (device 0) is modeled: its all_reduces span devices 0..N-1, whose streams 1
// carry nothing else, and start as soon as device 0's bucket is complete.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "perf/Support/Limits.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/InterleavedRange.h"

namespace perf {
#define GEN_PASS_DEF_DATAPARALLEL
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
/// The stream gradient all_reduces run on, apart from the compute stream.
constexpr int64_t kCommStream = 1;

struct DataParallelPass : perf::impl::DataParallelBase<DataParallelPass> {
  using DataParallelBase::DataParallelBase;

  LogicalResult initialize(MLIRContext *context) override {
    Location loc = UnknownLoc::get(context);
    if (devices < 1 || !(bucketMb > 0) || stride < 0)
      return emitError(loc, "--perf-data-parallel: devices and bucket-mb "
                            "must be positive, stride non-negative");
    if (!withinLimit(devices, kMaxDevices) ||
        !withinLimit(stride, kMaxDevices) ||
        bucketMb * 1024 * 1024 > double(kMaxExtent.max))
      return emitError(loc, "--perf-data-parallel: ")
             << (!withinLimit(devices, kMaxDevices)
                     ? limitExceeded("devices", devices, kMaxDevices)
                 : !withinLimit(stride, kMaxDevices)
                     ? limitExceeded("stride", stride, kMaxDevices)
                     : "bucket-mb is above the limit " + kMaxExtent.name.str() +
                           " in bytes");
    return success();
  }

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    if (failed(runOnGraph(getOperation())))
      signalPassFailure();
  }

  /// Every rank of the layout (replica i of stage s, TP member t: device
  /// stageDevice[s] + i x step + t) on a device of its own; two on one
  /// device is an error naming both.
  LogicalResult checkDisjointRanks(GraphOp graph, ArrayRef<int64_t> stageDevice,
                                   int64_t step, int64_t tpSize) {
    struct Rank {
      size_t stage;
      int64_t replica;
    };
    llvm::DenseMap<int64_t, Rank> owner;
    for (auto [s, first] : llvm::enumerate(stageDevice))
      for (int64_t i = 0; i < devices; ++i)
        for (int64_t t = 0; t < tpSize; ++t) {
          int64_t device = first + i * step + t;
          auto [it, fresh] = owner.try_emplace(device, Rank{s, i});
          if (fresh)
            continue;
          std::string starts;
          llvm::raw_string_ostream(starts) << llvm::interleaved(stageDevice);
          return graph.emitError("--perf-data-parallel: device ")
                 << device << " would run replica " << i << " of stage " << s
                 << " and replica " << it->second.replica << " of stage "
                 << it->second.stage << " (replicas " << step
                 << " devices apart, tensor-parallel groups of " << tpSize
                 << ", stages starting at devices " << starts
                 << "); give --perf-data-parallel a stride that keeps them "
                    "apart, or --perf-pipeline-parallel a stride of at least "
                 << int64_t(devices) * tpSize;
        }
    return success();
  }

  LogicalResult runOnGraph(GraphOp graph) {
    if (failed(refuseLaterLayouts(graph, "--perf-data-parallel",
                                  kDataParallelAttr, {kZeroAttr})))
      return failure();
    if (devices == 1)
      return success();
    // After pipeline parallelism every stage reduces its own gradients with
    // the same stage of the other replicas, once per step: buckets fill
    // during the last micro-batch's backward pass (earlier micro-batches
    // only accumulate, DDP's no_sync).
    int64_t stages = 1, lastMicrobatch = -1, stageSpacing = 0;
    if (auto pp = graph->getAttrOfType<DictionaryAttr>(kPipelineParallelAttr)) {
      if (auto a = pp.getAs<IntegerAttr>("stages"))
        stages = std::max<int64_t>(1, a.getInt());
      if (auto a = pp.getAs<IntegerAttr>("stride"))
        stageSpacing = a.getInt();
      if (!withinLimit(stages, kMaxDevices))
        return graph.emitError("--perf-data-parallel: ") << limitExceeded(
                   "perf.pipeline_parallel's stages", stages, kMaxDevices);
      if (auto a = pp.getAs<IntegerAttr>("microbatches"))
        lastMicrobatch = a.getInt() - 1;
    }
    // The pipeline's sends use streams 1..2(stages-1); the buckets go on the
    // next one.
    const int64_t commStream = stages > 1 ? 2 * stages - 1 : kCommStream;
    // After expert parallelism over P of the N replicas, an expert's
    // gradients are reduced over the N/P replicas that hold it (none when
    // P = N), apart from the rest.
    const int64_t expertDevices = layoutDegree(graph, kExpertParallelAttr);
    if (devices % expertDevices != 0)
      return graph.emitError()
             << "--perf-data-parallel: " << int64_t(devices)
             << " replicas cannot hold whole copies of experts spread over "
             << expertDevices << " devices (perf.expert_parallel)";
    const int64_t expertReplicas = devices / expertDevices;
    SmallVector<SmallVector<FrameworkOp>> backward(stages),
        expertBackward(stages);
    // The device each stage runs on (stage x TP size after TP and PP).
    SmallVector<int64_t> stageDevice(stages, 0);
    SmallVector<FrameworkOp> firstOptimizer(stages);
    double totalGrad = 0;
    // Whether the graph has gradients at all (experts' not reduced included).
    bool anyGradient = false;
    for (Operation &op : graph.getBodyBlock()) {
      auto fw = dyn_cast<FrameworkOp>(op);
      if (!fw)
        continue;
      int64_t stage = 0;
      if (stages > 1) {
        auto a = fw->getAttrOfType<IntegerAttr>(kStageAttr);
        stage = a ? a.getInt() : -1;
      }
      if (stage < 0 || stage >= stages)
        continue;
      if (stages > 1)
        stageDevice[stage] = fw.getDevice();
      if (isOptimizerOp(fw)) {
        if (!firstOptimizer[stage])
          firstOptimizer[stage] = fw;
        continue;
      }
      if (stages > 1) {
        auto mb = fw->getAttrOfType<IntegerAttr>(kMicrobatchAttr);
        if (!mb || mb.getInt() != lastMicrobatch)
          continue;
      }
      if (!isForwardOp(fw) && gradientBytes(fw) > 0) {
        anyGradient = true;
        bool expert = fw->hasAttr(kExpertAttr);
        if (expert && expertReplicas == 1)
          continue;
        (expert ? expertBackward : backward)[stage].push_back(fw);
        totalGrad += gradientBytes(fw);
      }
    }
    if (!anyGradient)
      return graph.emitError()
             << "--perf-data-parallel: graph @" << graph.getSymName()
             << " produces no gradients (no 'perf.grad_bytes' and no wgrad "
                "GEMM or convolution); is it a training graph?";

    // After tensor parallelism, device 0's replica is one of a TP group of
    // consecutive devices; the data-parallel peers are a TP group apart.
    // After pipeline parallelism with its stages side by side, a pipeline
    // (stages x TP size) apart; with the stages spaced out (Megatron-LM's
    // rank order tp-dp-pp), a TP group apart, in the gap.
    const int64_t tpSize = layoutDegree(graph, kTensorParallelAttr);
    if (!withinLimit(tpSize, kMaxDevices) ||
        !withinLimit(stageSpacing, kMaxDevices))
      return graph.emitError("--perf-data-parallel: ")
             << (withinLimit(tpSize, kMaxDevices)
                     ? limitExceeded("perf.pipeline_parallel's stride",
                                     stageSpacing, kMaxDevices)
                     : limitExceeded(kTensorParallelAttr, tpSize, kMaxDevices));
    const int64_t defaultStep =
        defaultReplicaStep(stages, stageSpacing, tpSize);
    int64_t step = stride > 0 ? int64_t(stride) : defaultStep;
    // The experts' all_to_alls already span the replicas the default places
    // (--perf-expert-parallel, and --perf-pipeline-parallel after it).
    if (expertDevices > 1 && step != defaultStep)
      return graph.emitError("--perf-data-parallel: stride=")
             << step << " puts the replicas elsewhere than the "
             << expertDevices
             << " devices the experts' all_to_alls already span ("
             << defaultStep << " apart); leave stride at 0";
    // Device ids stay within max-devices (each factor is within it, so the
    // product cannot overflow first).
    for (int64_t device : stageDevice)
      if (!withinLimit(device + (devices - 1) * step, kMaxDevices))
        return graph.emitError("--perf-data-parallel: ")
               << limitExceeded("the last replica's device id",
                                device + (devices - 1) * step, kMaxDevices);
    if (failed(checkDisjointRanks(graph, stageDevice, step, tpSize)))
      return failure();
    const int64_t bucketBytes = static_cast<int64_t>(bucketMb * 1024 * 1024);
    OpBuilder b(&getContext());
    int64_t bucket = 0;
    // Buckets of `ops`' gradients, each reduced over `group` once full.
    auto reduceInBuckets = [&](ArrayRef<FrameworkOp> ops, int64_t device,
                               ArrayRef<int64_t> group) {
      int64_t pending = 0;
      for (size_t i = 0; i < ops.size(); ++i) {
        FrameworkOp op = ops[i];
        pending += gradientBytes(op);
        bool last = i + 1 == ops.size();
        if (pending < bucketBytes && !last)
          continue;
        Value ready = ensureResult(op);
        b.setInsertionPointAfter(op);
        FrameworkOp comm = createCommOp(
            b, op.getLoc(), kDdpBucketOpName, ValueRange{ready}, device,
            makeCollectiveWork(b.getContext(), WorkKind::AllReduce, pending,
                               group, device, commStream));
        comm->setAttr(kBucketAttr, b.getI64IntegerAttr(bucket++));
        pending = 0;
      }
    };
    for (int64_t stage = 0; stage < stages; ++stage) {
      const int64_t device = stageDevice[stage];
      SmallVector<int64_t> group, expertGroup;
      for (int64_t i = 0; i < devices; ++i) {
        group.push_back(device + i * step);
        // The replicas of device 0's experts: an expert group apart.
        if (i % expertDevices == 0)
          expertGroup.push_back(device + i * step);
      }
      reduceInBuckets(backward[stage], device, group);
      reduceInBuckets(expertBackward[stage], device, expertGroup);
      // The optimizer step waits for every bucket (DDP's finalize).
      if (FrameworkOp opt = firstOptimizer[stage]) {
        b.setInsertionPoint(opt);
        SyncOp::create(b, opt.getLoc(), b.getI64IntegerAttr(device),
                       b.getI64IntegerAttr(commStream));
      }
    }
    graph->setAttr(kDataParallelAttr, b.getI64IntegerAttr(devices));
    graph->setAttr(kGradBytesAttr, b.getI64IntegerAttr(totalGrad));
    return success();
  }
};
} // namespace
