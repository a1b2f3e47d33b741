//===- ZeroRedundancy.cpp - --perf-zero -----------------------------------===//
//
// ZeRO stages 1-3 over the replicas --perf-data-parallel added: what each
// replica keeps (the memory analysis reads perf.zero) and what it exchanges
// (reduce_scatter and all_gather in place of DDP's all_reduce).
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/MapVector.h"

namespace perf {
#define GEN_PASS_DEF_ZEROREDUNDANCY
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {

/// Where a replica's DDP buckets ran: their group and stream.
struct Peers {
  DenseI64ArrayAttr group;
  int64_t stream = 0;
};

/// What stage 3 gathers and reduces for one unit.
struct Unit {
  /// Weight bytes of the unit on one replica before sharding (its tensor-
  /// parallel shard).
  double weightBytes = 0;
  /// Ops that read the weights, in the forward and in the backward pass.
  SmallVector<FrameworkOp> forwardReaders, backwardReaders;
  /// The unit's gradient bytes and the backward op that completes them.
  double gradientBytes = 0;
  FrameworkOp lastBackward;
};

struct ZeroRedundancyPass : perf::impl::ZeroRedundancyBase<ZeroRedundancyPass> {
  using ZeroRedundancyBase::ZeroRedundancyBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (stage < 1 || stage > 3)
      return emitError(UnknownLoc::get(context),
                       "--perf-zero: stage must be 1, 2 or 3, got ")
             << int64_t(stage);
    return success();
  }

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    if (failed(runOnGraph(getOperation())))
      signalPassFailure();
  }

  LogicalResult runOnGraph(GraphOp graph) {
    auto dp = graph->getAttrOfType<IntegerAttr>(kDataParallelAttr);
    if (!dp || dp.getInt() < 2)
      return graph.emitError()
             << "--perf-zero: graph @" << graph.getSymName()
             << " has no data-parallel replicas; run "
                "--perf-data-parallel=devices=N (N >= 2) first";
    if (graph->hasAttr(kZeroAttr))
      return graph.emitError()
             << "--perf-zero: graph @" << graph.getSymName()
             << " already runs ZeRO stage " << graph->getAttr(kZeroAttr);
    if (stage >= 2 && graph->hasAttr(kPipelineParallelAttr))
      return graph.emitError()
             << "--perf-zero: stage " << int64_t(stage)
             << " shards gradients, which pipeline parallelism accumulates "
                "over micro-batches (DeepSpeed allows stage 1 only with "
                "pipelines)";
    const int64_t replicas = dp.getInt();

    // DDP's buckets: each one's group, stream and position.
    SmallVector<FrameworkOp> buckets;
    llvm::DenseMap<int64_t, Peers> groupOf;
    for (FrameworkOp fw : graph.getBodyBlock().getOps<FrameworkOp>())
      if (fw.getOpName() == kDdpBucketOpName)
        for (WorkAttr w : fw.getWorkList())
          if (w.getKind() == WorkKind::AllReduce) {
            buckets.push_back(fw);
            groupOf.try_emplace(
                fw.getDevice(),
                Peers{w.getAs<DenseI64ArrayAttr>("group"), w.getStreamId()});
          }
    if (buckets.empty())
      return graph.emitError() << "--perf-zero: graph @" << graph.getSymName()
                               << " has no ddp::all_reduce bucket to shard";

    OpBuilder b(&getContext());
    if (stage < 3) {
      for (FrameworkOp bucket : buckets)
        toReduceScatter(bucket);
    } else if (failed(shardWeights(b, graph, groupOf))) {
      return failure();
    }
    shardOptimizer(b, graph, replicas, groupOf);
    graph->setAttr(kZeroAttr, b.getI64IntegerAttr(stage));
    return success();
  }

  /// A DDP bucket's all_reduce becomes a reduce_scatter of the same bytes:
  /// each replica keeps the reduced 1/N it updates. It keeps what the
  /// collective is (size, group, type, placement, algorithm), not what
  /// passes wrote about the all_reduce (its price).
  static void toReduceScatter(FrameworkOp bucket) {
    bucket.setOpName(kZeroReduceScatterOpName);
    SmallVector<WorkAttr> work(bucket.getWorkList());
    for (WorkAttr &w : work) {
      if (w.getKind() != WorkKind::AllReduce)
        continue;
      WorkAttr scatter = makeCollectiveWork(
          bucket.getContext(), WorkKind::ReduceScatter, w.getCollectiveBytes(),
          w.getGroupIds(), w.getDeviceId(), w.getStreamId());
      for (StringRef kept : {"dtype", "algorithm"})
        if (Attribute value = w.get(kept))
          scatter = scatter.with(kept, value);
      w = scatter;
    }
    bucket.setWorkList(work);
  }

  /// Every optimizer step updates 1/N of its elements; below stage 3 the
  /// updated weights are all-gathered after it, on the compute stream (the
  /// next step's forward reads them).
  void shardOptimizer(OpBuilder &b, GraphOp graph, int64_t replicas,
                      const llvm::DenseMap<int64_t, Peers> &groupOf) {
    for (FrameworkOp fw : llvm::make_early_inc_range(
             graph.getBodyBlock().getOps<FrameworkOp>())) {
      if (!isOptimizerOp(fw))
        continue;
      // Each replica updates (and, with master weights, writes back to
      // the model) its own 1/N; the gather moves the model's weights, the
      // 16-bit ones the copy back writes where the update is FP32.
      double weightBytes = 0;
      for (size_t i = 0, e = fw.getNumWork(); i < e; ++i) {
        auto update = dyn_cast<OptimizerWork>(fw.getWork(i));
        if (!update)
          continue;
        int64_t elements = update.getElements();
        DType gathered = update.getKernelDesc().dtype;
        if (WorkAttr copyBack = masterCopyBack(fw, i))
          gathered = copyBack.getKernelDesc().dtype;
        weightBytes += double(elements) * dtypeBytes(gathered);
      }
      shareOptimizerUpdates(fw, [&](int64_t elements) {
        return (elements + replicas - 1) / replicas;
      });
      if (stage == 3 || weightBytes == 0)
        continue;
      auto it = groupOf.find(fw.getDevice());
      const Peers &peers =
          it != groupOf.end() ? it->second : groupOf.begin()->second;
      Value updated = ensureResult(fw);
      b.setInsertionPointAfter(fw);
      int64_t device = fw.getDevice();
      createCommOp(b, fw.getLoc(), "zero::all_gather", ValueRange{updated},
                   device,
                   makeCollectiveWork(b.getContext(), WorkKind::AllGather,
                                      saturatedBytes(weightBytes),
                                      peers.group.asArrayRef(), device));
    }
  }

  /// Stage 3: DDP's buckets give way to one all_gather per unit and pass
  /// and one reduce_scatter per unit.
  LogicalResult shardWeights(OpBuilder &b, GraphOp graph,
                             const llvm::DenseMap<int64_t, Peers> &groupOf) {
    const int64_t tp = layoutDegree(graph, kTensorParallelAttr);
    const int64_t device = groupOf.begin()->first;
    const Peers peers = groupOf.begin()->second;
    const int64_t commStream = peers.stream;

    llvm::MapVector<int64_t, Unit> units;
    for (FrameworkOp fw : graph.getBodyBlock().getOps<FrameworkOp>()) {
      if (isOptimizerOp(fw) || int64_t(fw.getDevice()) != device)
        continue;
      std::optional<int64_t> params = declaredParameters(fw);
      bool forward = isForwardOp(fw);
      // Ops outside every block are the root unit (-1).
      Unit &unit = units[layerOf(fw).value_or(-1)];
      if (params && *params > 0) {
        // A recomputed forward op runs in the backward pass.
        if (forward && !fw->hasAttr(kRecomputedAttr)) {
          unit.weightBytes +=
              double(*params) * parameterElementBytes(fw) / double(tp);
          unit.forwardReaders.push_back(fw);
        } else {
          unit.backwardReaders.push_back(fw);
        }
      }
      if (int64_t gradient = forward ? 0 : gradientBytes(fw); gradient > 0) {
        unit.gradientBytes += double(gradient);
        unit.lastBackward = fw;
      }
    }

    // The buckets go; the optimizer's sync on their stream stays and now
    // waits for the reduce_scatters.
    for (FrameworkOp fw :
         llvm::make_early_inc_range(graph.getBodyBlock().getOps<FrameworkOp>()))
      if (fw.getOpName() == kDdpBucketOpName) {
        if (!fw->use_empty())
          return fw.emitError("--perf-zero: a DDP bucket's result is read; "
                              "cannot replace it");
        fw.erase();
      }

    auto gather = [&](FrameworkOp before, const Unit &unit,
                      StringRef name) -> Value {
      // The gathered tensor has the type of the unit's first weights.
      Type element = getElementType(
          b.getContext(), parameterDType(unit.forwardReaders.front()));
      int64_t bytes = saturatedBytes(unit.weightBytes);
      int64_t elements = std::max<int64_t>(
          1, bytes / std::max<int64_t>(1, elementBytes(element)));
      b.setInsertionPoint(before);
      auto op = FrameworkOp::create(
          b, before.getLoc(),
          TypeRange{RankedTensorType::get({elements}, element)},
          b.getStringAttr(name), ValueRange{}, b.getI64IntegerAttr(device));
      if (Attribute layer = before->getAttr(kLayerAttr))
        op->setAttr(kLayerAttr, layer);
      op.setWorkList(makeCollectiveWork(b.getContext(), WorkKind::AllGather,
                                        bytes, peers.group.asArrayRef(), device,
                                        commStream));
      return op.getResult(0);
    };
    auto readBy = [](Value weights, ArrayRef<FrameworkOp> readers) {
      for (FrameworkOp reader : readers)
        reader->insertOperands(reader->getNumOperands(), weights);
    };

    for (auto &entry : units) {
      const int64_t id = entry.first;
      const Unit &unit = entry.second;
      if (unit.weightBytes > 0 && !unit.forwardReaders.empty()) {
        Value weights =
            gather(unit.forwardReaders.front(), unit, "zero::all_gather");
        readBy(weights, unit.forwardReaders);
        // The root unit stays gathered into the backward pass.
        if (id < 0)
          readBy(weights, unit.backwardReaders);
        else if (!unit.backwardReaders.empty())
          readBy(gather(unit.backwardReaders.front(), unit,
                        "zero::all_gather.backward"),
                 unit.backwardReaders);
      }
      if (unit.gradientBytes > 0 && unit.lastBackward) {
        FrameworkOp last = unit.lastBackward;
        Value ready = ensureResult(last);
        b.setInsertionPointAfter(last);
        FrameworkOp comm = createCommOp(
            b, last.getLoc(), kZeroReduceScatterOpName, ValueRange{ready},
            device,
            makeCollectiveWork(b.getContext(), WorkKind::ReduceScatter,
                               saturatedBytes(unit.gradientBytes),
                               peers.group.asArrayRef(), device, commStream));
        if (id >= 0)
          comm->setAttr(kLayerAttr, b.getI64IntegerAttr(id));
      }
    }
    return success();
  }
};
} // namespace
