//===- ExpertParallel.cpp - --perf-expert-parallel ------------------------===//
//
// Expert parallelism (GShard, Switch, DeepSpeed-MoE): the experts of each
// mixture-of-experts layer are spread over N GPUs, E/N on each, and every
// GPU runs the rest of the model on its own tokens. One device is modeled,
// device 0, which holds experts 0 .. E/N-1: it sends each routed token to
// the device of its expert and gets the results back (two all_to_alls in
// the forward pass, two in the backward), and its experts run the tokens
// that all N devices route to them. Device 0 holds expert 0, which a skewed
// router fills first, so it is the device the step waits for.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "perf/Support/Limits.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/ResizeExtent.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/MapVector.h"

namespace perf {
#define GEN_PASS_DEF_EXPERTPARALLEL
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {

std::optional<int64_t> expertOf(Operation *op) {
  if (auto a = op->getAttrOfType<IntegerAttr>(kExpertAttr))
    return a.getInt();
  return std::nullopt;
}

/// One mixture-of-experts layer as device 0 sees it.
struct MoeLayer {
  /// Per expert: the tokens one device routes to it and the bytes of those
  /// tokens (tokens x hidden size x element size, from its first GEMM).
  llvm::SmallDenseMap<int64_t, int64_t> tokens;
  llvm::SmallDenseMap<int64_t, double> tokenBytes;
  /// Device 0's expert ops, in program order.
  SmallVector<FrameworkOp> forward, backward;
};

struct ExpertParallelPass : perf::impl::ExpertParallelBase<ExpertParallelPass> {
  using ExpertParallelBase::ExpertParallelBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (devices < 2 || !withinLimit(devices, kMaxDevices))
      return emitError(UnknownLoc::get(context),
                       "--perf-expert-parallel: devices must be in 2..")
             << kMaxDevices.max << ", got " << int64_t(devices);
    return success();
  }

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    if (failed(runOnGraph(getOperation())))
      signalPassFailure();
  }

  LogicalResult runOnGraph(GraphOp graph) {
    if (graph->hasAttr(kExpertParallelAttr))
      return graph.emitError()
             << "--perf-expert-parallel: graph @" << graph.getSymName()
             << " already spreads its experts over "
             << graph->getAttr(kExpertParallelAttr) << " devices";
    for (StringRef layout :
         {kDataParallelAttr, kTensorParallelAttr, kPipelineParallelAttr})
      if (graph->hasAttr(layout))
        return graph.emitError()
               << "--perf-expert-parallel: graph @" << graph.getSymName()
               << " already has " << layout
               << "; place the experts first (--perf-expert-parallel before "
                  "the tensor, pipeline and data-parallel passes)";

    int64_t experts = 0;
    for (Operation &op : graph.getBodyBlock())
      if (std::optional<int64_t> e = expertOf(&op))
        experts = std::max(experts, *e + 1);
    if (experts == 0)
      return graph.emitError()
             << "--perf-expert-parallel: graph @" << graph.getSymName()
             << " has no mixture-of-experts ops (perf.expert); import a "
                "Switch-Transformers config with --import-model-config";
    if (experts % devices != 0)
      return graph.emitError() << "--perf-expert-parallel: " << experts
                               << " experts do not split evenly over "
                               << int64_t(devices) << " devices";
    const int64_t local = experts / devices;

    // Each layer's experts: tokens, and device 0's ops; the others' go.
    llvm::MapVector<int64_t, MoeLayer> layers;
    SmallVector<Operation *> remote;
    double remoteParams = 0, remoteGradBytes = 0;
    for (Operation &op : graph.getBodyBlock()) {
      std::optional<int64_t> e = expertOf(&op);
      if (!e)
        continue;
      auto fw = dyn_cast<FrameworkOp>(op);
      MoeLayer &layer = layers[layerOf(&op).value_or(-1)];
      bool forward = fw && isForwardOp(fw) && !fw->hasAttr(kRecomputedAttr);
      if (forward && !layer.tokens.count(*e))
        for (WorkAttr w : fw.getWorkList())
          if (w.getKind() == WorkKind::Gemm) {
            KernelDesc desc = w.getKernelDesc();
            layer.tokens[*e] = desc.m;
            layer.tokenBytes[*e] =
                double(desc.m) * double(desc.k) * dtypeBytes(desc.dtype);
            break;
          }
      if (*e >= local) {
        remote.push_back(&op);
        if (forward)
          remoteParams += double(declaredParameters(fw).value_or(0));
        else if (fw)
          remoteGradBytes += double(gradientBytes(fw));
        continue;
      }
      if (fw)
        (forward ? layer.forward : layer.backward).push_back(fw);
    }

    // Device 0 does not run the other devices' experts.
    for (Operation *op : llvm::reverse(remote))
      if (failed(dropRemoteOp(op)))
        return failure();
    shrinkOptimizer(graph, remoteParams);
    // The training synthesis's totals: device 0's weights and gradients.
    OpBuilder b(&getContext());
    for (auto [name, removed] :
         {std::pair{StringRef(kParametersAttr), remoteParams},
          std::pair{StringRef(kGradBytesAttr), remoteGradBytes}})
      if (auto total = graph->getAttrOfType<IntegerAttr>(name))
        graph->setAttr(name, b.getI64IntegerAttr(std::max<int64_t>(
                                 0, total.getInt() - int64_t(removed))));

    for (auto &[id, layer] : layers) {
      // Its experts run the tokens every device routes to them.
      for (ArrayRef<FrameworkOp> ops :
           {ArrayRef(layer.forward), ArrayRef(layer.backward)})
        for (FrameworkOp op : ops) {
          int64_t tokens = layer.tokens.lookup(*expertOf(op));
          if (tokens > 0 && failed(receiveTokens(op, tokens)))
            return failure();
        }
      // What one device sends to each device: the tokens of its experts.
      SmallVector<int64_t> toDevice(devices, 0);
      for (auto [e, bytes] : layer.tokenBytes)
        toDevice[e / local] += saturatedBytes(bytes);
      if (!layer.forward.empty()) {
        dispatchBefore(b, layer.forward.front(), layer.forward, toDevice, id);
        combineAfter(b, layer.forward.back(), toDevice, id);
      }
      if (!layer.backward.empty()) {
        dispatchBefore(b, layer.backward.front(), layer.backward, toDevice, id);
        combineAfter(b, layer.backward.back(), toDevice, id);
      }
    }
    graph->setAttr(kExpertParallelAttr, b.getI64IntegerAttr(devices));
    return success();
  }

  /// Removes another device's expert op. A result later ops read becomes the
  /// op's operand of the same type (the tokens that pass the expert by);
  /// without one, the readers lose that operand (a gradient contribution
  /// another device computes).
  static LogicalResult dropRemoteOp(Operation *op) {
    for (OpResult r : op->getResults()) {
      if (r.use_empty())
        continue;
      Value same;
      for (Value in : op->getOperands())
        if (in.getType() == r.getType()) {
          same = in;
          break;
        }
      if (same) {
        r.replaceAllUsesWith(same);
        continue;
      }
      for (OpOperand &use : llvm::make_early_inc_range(r.getUses())) {
        if (!isa<FrameworkOp>(use.getOwner()))
          return op->emitError("--perf-expert-parallel: an expert op's "
                               "result is read by a ")
                 << use.getOwner()->getName() << "; cannot remove it";
        use.getOwner()->eraseOperand(use.getOperandNumber());
      }
    }
    op->erase();
    return success();
  }

  /// The optimizer updates device 0's weights only: the other devices'
  /// experts leave its elements.
  static void shrinkOptimizer(GraphOp graph, double removed) {
    if (removed <= 0)
      return;
    double total = 0;
    graph.walk([&](FrameworkOp fw) {
      for (WorkAttr w : fw.getWorkList())
        if (auto optimizer = dyn_cast<OptimizerWork>(w))
          total += optimizer.getElements();
    });
    if (total <= 0)
      return;
    double keep = std::max(0.0, 1.0 - removed / total);
    graph.walk([&](FrameworkOp fw) {
      shareOptimizerUpdates(fw, [&](int64_t elements) {
        return int64_t(double(elements) * keep);
      });
    });
  }

  /// One of device 0's expert ops, which runs the tokens of all N devices.
  LogicalResult receiveTokens(FrameworkOp op, int64_t tokens) {
    ExtentScaler scaler{tokens, tokens * int64_t(devices)};
    for (OpResult r : op->getResults())
      r.setType(resizeType(r.getType(), scaler, /*exactOnly=*/true));
    return resizeWorkExtent(op, scaler, "--perf-expert-parallel");
  }

  /// The all_to_all that sends each device's tokens to their experts:
  /// device i sends toDevice[j] bytes to device j.
  FrameworkOp allToAll(OpBuilder &b, Location loc, ValueRange inputs,
                       ArrayRef<int64_t> toDevice, bool combine,
                       int64_t layer) {
    const int64_t n = devices;
    // Dispatch: row i is toDevice for every i. Combine, its transpose:
    // device j returns toDevice[j] to each device.
    // `bytes`: evenly, all a device sends (its own share included, which
    // stays); unevenly, the most any device sends to the others.
    bool even = llvm::all_equal(toDevice);
    SmallVector<int64_t> split(n * n, 0);
    int64_t most = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t row = 0;
      for (int64_t j = 0; j < n; ++j) {
        int64_t bytes = combine ? toDevice[i] : toDevice[j];
        split[i * n + j] = bytes;
        if (even || i != j)
          row += bytes;
      }
      most = std::max(most, row);
    }
    WorkAttr exchange = makeCollectiveWork(b.getContext(), WorkKind::AllToAll,
                                           most, iotaGroup(n));
    if (!even)
      exchange = cast<AllToAllWork>(exchange).withSplitBytes(split);
    FrameworkOp comm = createCommOp(
        b, loc, combine ? "ep::combine" : "ep::dispatch", inputs, 0, exchange);
    if (layer >= 0)
      comm->setAttr(kLayerAttr, b.getI64IntegerAttr(layer));
    // Tensor and pipeline parallelism after this pass move these groups to
    // the devices that hold the other experts.
    comm->setAttr(kExpertExchangeAttr, b.getUnitAttr());
    return comm;
  }

  /// Before the first of a layer's expert ops: the dispatch, which the
  /// experts' inputs now come from.
  void dispatchBefore(OpBuilder &b, FrameworkOp first,
                      ArrayRef<FrameworkOp> experts, ArrayRef<int64_t> toDevice,
                      int64_t layer) {
    b.setInsertionPoint(first);
    SmallVector<Value> inputs(first->getOperands());
    FrameworkOp comm =
        allToAll(b, first.getLoc(), inputs, toDevice, false, layer);
    for (FrameworkOp op : experts)
      for (auto [from, to] : llvm::zip(inputs, comm->getResults()))
        op->replaceUsesOfWith(from, to);
  }

  /// After the last of a layer's expert ops: the combine, whose results the
  /// later ops read.
  void combineAfter(OpBuilder &b, FrameworkOp last, ArrayRef<int64_t> toDevice,
                    int64_t layer) {
    ensureResult(last);
    b.setInsertionPointAfter(last);
    FrameworkOp comm =
        allToAll(b, last.getLoc(), last->getResults(), toDevice, true, layer);
    for (auto [from, to] : llvm::zip(last->getResults(), comm->getResults()))
      from.replaceAllUsesExcept(to, comm);
  }
};
} // namespace
