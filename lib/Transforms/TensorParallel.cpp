//===- TensorParallel.cpp - --perf-tensor-parallel ------------------------===//
//
// Megatron-LM tensor parallelism (Shoeybi et al. 2019, Sec. 3): an MLP or
// attention block is a column-parallel GEMM (weights split by output
// columns), local work on the split activations, and a row-parallel GEMM
// (weights split by input rows) whose partial outputs are all-reduced. The
// backward pass mirrors it: the input gradient of each column-parallel layer
// is all-reduced. Ranks are symmetric, so device 0 stands for all of them.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "perf/Support/Limits.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseSet.h"

namespace perf {
#define GEN_PASS_DEF_TENSORPARALLEL
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
int64_t divideUp(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct TensorParallelPass : perf::impl::TensorParallelBase<TensorParallelPass> {
  using TensorParallelBase::TensorParallelBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (devices < 1)
      return emitError(UnknownLoc::get(context),
                       "--perf-tensor-parallel: devices must be positive");
    if (!withinLimit(devices, kMaxDevices))
      return emitError(UnknownLoc::get(context), "--perf-tensor-parallel: ")
             << limitExceeded("devices", devices, kMaxDevices);
    return success();
  }

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    if (devices > 1 && failed(runOnGraph(getOperation())))
      signalPassFailure();
  }

  /// A split of `size` (what `what` names) over the ranks leaves each at
  /// least one; finer is not tensor parallelism but an error in the options.
  LogicalResult checkSplit(FrameworkOp op, WorkAttr kernel, StringRef what,
                           int64_t size) {
    if (size >= devices)
      return success();
    return op.emitWorkError(kernel)
           << "--perf-tensor-parallel: devices=" << int64_t(devices)
           << " splits the " << size << " " << what
           << " finer than one per rank";
  }

  /// `size` divided N ways, rounded up.
  int64_t divided(int64_t size) const { return divideUp(size, devices); }

  /// Splits a kernel between a column- and a row-parallel GEMM N ways.
  WorkAttr splitLocal(WorkAttr k) {
    if (auto attention = dyn_cast<AttentionWork>(k))
      return attention.withHeads(divided(attention.getHeads()));
    if (auto elementwise = dyn_cast<ElementwiseWork>(k))
      return elementwise.withElements(divided(elementwise.getElements()));
    if (auto transpose = dyn_cast<TransposeWork>(k))
      return transpose.withElements(divided(transpose.getElements()));
    if (auto concat = dyn_cast<ConcatWork>(k))
      return concat.withElements(divided(concat.getElements()));
    if (auto softmax = dyn_cast<SoftmaxWork>(k))
      return softmax.withRows(divided(softmax.getRows()));
    if (auto reduce = dyn_cast<ReduceWork>(k))
      return reduce.withRows(divided(reduce.getRows()));
    if (auto norm = dyn_cast<LayerNormWork>(k))
      return norm.withRows(divided(norm.getRows()));
    if (auto generic = dyn_cast<GenericWork>(k))
      return generic.withFlops(generic.getFlops() / devices)
          .withBytes(generic.getBytes() / devices);
    return k;
  }

  /// Divides the largest dimension of a backward GEMM: its FLOPs shrink N
  /// ways whichever dimension the split follows.
  WorkAttr splitBackwardGemm(WorkAttr work) {
    auto g = cast<GemmWork>(work);
    int64_t m = g.getM(), n = g.getN(), k = g.getK();
    if (m >= n && m >= k)
      return g.withM(divided(m));
    if (n >= k)
      return g.withN(divided(n));
    return g.withK(divided(k));
  }

  /// Under sequence parallelism a router's GEMM works on the rank's 1/N of
  /// the tokens: the m of its forward GEMM and of its input gradient (tokens
  /// x hidden), the k of its weight gradient (a sum over tokens).
  WorkAttr splitTokens(WorkAttr work) {
    auto g = cast<GemmWork>(work);
    switch (g.getPass()) {
    case TrainingPass::Fwd:
    case TrainingPass::Dgrad:
      return g.withM(divided(g.getM()));
    case TrainingPass::Wgrad:
      return g.withK(divided(g.getK()));
    default:
      return splitBackwardGemm(g);
    }
  }

  /// After expert parallelism over P devices, its all_to_alls span device
  /// 0 and the P - 1 others that hold the layer's other experts. Megatron-LM
  /// forms expert groups out of the data-parallel ranks with the tensor
  /// ranks innermost, so with experts split over the TP ranks as the dense
  /// MLPs are (expert tensor parallelism equal to TP) device 0's peers are
  /// a TP group apart: 0, N, 2N, ... Each TP rank exchanges the tokens it
  /// holds: all of them, or under sequence parallelism its 1/N of the
  /// sequence (gathered over the TP group before the experts' first GEMM,
  /// reduce-scattered after their last).
  void placeExpertExchanges(GraphOp graph, OpBuilder &b) {
    graph.walk([&](FrameworkOp fw) {
      if (!isExpertExchange(fw))
        return;
      SmallVector<WorkAttr> work(fw.getWorkList());
      for (WorkAttr &piece : work) {
        auto exchange = dyn_cast<AllToAllWork>(piece);
        if (!exchange)
          continue;
        SmallVector<int64_t> group(exchange.getGroup());
        for (int64_t &d : group)
          d *= devices;
        exchange = cast<AllToAllWork>(exchange.withGroup(group));
        if (sequenceParallel) {
          exchange = cast<AllToAllWork>(
              exchange.withBytes(divided(exchange.getBytes())));
          if (!exchange.getSplitBytes().empty()) {
            SmallVector<int64_t> shares(exchange.getSplitBytes());
            for (int64_t &bytes : shares)
              bytes = divided(bytes);
            exchange = exchange.withSplitBytes(shares);
          }
        }
        piece = exchange;
      }
      fw.setWorkList(work);
    });
  }

  /// The collective that follows a row-parallel GEMM or precedes a
  /// column-parallel one: an all_reduce, or under sequence parallelism a
  /// reduce_scatter (after) or an all_gather (before).
  enum class Exchange { AllReduce, ReduceScatter, AllGather };

  FrameworkOp createExchange(Exchange kind, Location loc, ValueRange inputs,
                             int64_t bytes, OpBuilder &b) {
    SmallVector<int64_t> group = iotaGroup(devices);
    StringRef name = kind == Exchange::AllReduce       ? "tp::all_reduce"
                     : kind == Exchange::ReduceScatter ? "sp::reduce_scatter"
                                                       : "sp::all_gather";
    WorkKind work = kind == Exchange::AllReduce       ? WorkKind::AllReduce
                    : kind == Exchange::ReduceScatter ? WorkKind::ReduceScatter
                                                      : WorkKind::AllGather;
    return createCommOp(b, loc, name, inputs, 0,
                        makeCollectiveWork(b.getContext(), work, bytes, group));
  }

  void addExchangeAfter(FrameworkOp op, Exchange kind, int64_t bytes,
                        OpBuilder &b) {
    ensureResult(op);
    b.setInsertionPointAfter(op);
    FrameworkOp comm =
        createExchange(kind, op.getLoc(), op->getResults(), bytes, b);
    // Later ops read the reduced tensors.
    for (auto [from, to] : llvm::zip(op->getResults(), comm->getResults()))
      from.replaceAllUsesExcept(to, comm);
  }

  /// Sequence parallelism: `op` reads its first operand gathered from the
  /// ranks' sequence shards (`bytes`, the whole tensor). Ops reading the
  /// same tensor share one gather (`gathered`).
  void addGatherBefore(FrameworkOp op, int64_t bytes, OpBuilder &b,
                       llvm::DenseMap<Value, Value> &gathered) {
    if (op->getNumOperands() == 0)
      return;
    Value input = op->getOperand(0);
    Value &shared = gathered[input];
    if (!shared) {
      b.setInsertionPoint(op);
      shared = createExchange(Exchange::AllGather, op.getLoc(),
                              ValueRange{input}, bytes, b)
                   ->getResult(0);
    }
    op->setOperand(0, shared);
  }

  /// An op outside the tensor-parallel regions under sequence parallelism:
  /// its results hold 1/N of the sequence (the memory analysis reads the
  /// tensor-split mark; the column-GEMM rule does not follow them).
  static void splitSequence(FrameworkOp op, llvm::DenseSet<Value> &split,
                            OpBuilder &b) {
    split.insert(op->result_begin(), op->result_end());
    op->setAttr(kTensorSplitAttr, b.getUnitAttr());
  }

  LogicalResult runOnGraph(GraphOp graph) {
    if (failed(refuseLaterLayouts(
            graph, "--perf-tensor-parallel", kTensorParallelAttr,
            {kPipelineParallelAttr, kDataParallelAttr, kZeroAttr})))
      return failure();
    OpBuilder b(&getContext());
    SmallVector<FrameworkOp> ops;
    for (Operation &op : graph.getBodyBlock())
      if (auto fw = dyn_cast<FrameworkOp>(op))
        ops.push_back(fw);
    const Exchange afterRow =
        sequenceParallel ? Exchange::ReduceScatter : Exchange::AllReduce;

    // Each rank holds 1/N of the weights, so it produces 1/N of the
    // gradients (what data parallelism on top reduces), a router's whole.
    // Gradients derived from wgrad GEMM shapes shrink with the GEMM split
    // below.
    for (FrameworkOp op : ops)
      if (auto g = op->getAttrOfType<IntegerAttr>(kGradBytesAttr);
          g && !op->hasAttr(kRouterAttr))
        op->setAttr(kGradBytesAttr,
                    b.getI64IntegerAttr(divideUp(g.getInt(), devices)));

    // Forward: a GEMM that reads a replicated tensor is column-parallel (its
    // output is split over the ranks), one that reads a split tensor is
    // row-parallel (its all-reduced output is replicated again), and the
    // kernels between them work on split tensors. Whether an op's input is
    // split follows the data flow between ops (separate Q, K and V GEMMs
    // are three column-parallel layers); a graph without data-flow edges
    // alternates column and row GEMMs in launch order.
    bool hasDataFlow = llvm::any_of(ops, [](FrameworkOp op) {
      return isForwardOp(op) && op->getNumOperands() > 0;
    });
    if (sequenceParallel && !hasDataFlow)
      return graph.emitError()
             << "--perf-tensor-parallel: sequence-parallel follows the data "
                "flow, and graph @"
             << graph.getSymName() << " has no data-flow edges";
    llvm::DenseSet<Value> splitValues;
    // The op's results are split; the memory analysis reads the mark.
    auto markSplit = [&](Operation *op) {
      splitValues.insert(op->result_begin(), op->result_end());
      op->setAttr(kTensorSplitAttr, b.getUnitAttr());
    };
    bool carried = false; // Without data flow: the state the last op left.
    struct ColumnLayer {
      int64_t batch, m, n, k;
      int64_t inputBytes;
    };
    SmallVector<ColumnLayer> columns;
    // Sequence parallelism: the row-parallel layers (their output bytes in
    // inputBytes), the column-parallel ops with the bytes of their gathered
    // input, and the tensors split along the sequence.
    SmallVector<ColumnLayer> rows;
    SmallVector<std::pair<FrameworkOp, int64_t>> columnInputs;
    llvm::DenseSet<Value> sequenceSplit;
    // Element counts of the forward element-wise kernels that were split:
    // their backward twins (gelu_bwd of a gelu) are split too.
    llvm::SmallDenseSet<int64_t> splitElementCounts;
    SmallVector<std::pair<FrameworkOp, int64_t>> forwardReduces;
    int64_t numForward = 0, numBackward = 0;
    for (FrameworkOp op : ops) {
      if (!isForwardOp(op))
        continue;
      bool inside =
          hasDataFlow
              ? llvm::any_of(op->getOperands(),
                             [&](Value v) { return splitValues.contains(v); })
              : carried;
      if (!op.hasWork()) {
        // A view or reshape of a split tensor is split.
        if (inside)
          markSplit(op);
        else if (sequenceParallel &&
                 llvm::any_of(op->getOperands(), [&](Value v) {
                   return sequenceSplit.contains(v);
                 }))
          splitSequence(op, sequenceSplit, b);
        continue;
      }
      // A mixture-of-experts router runs whole on every rank (Megatron-LM
      // keeps its weights whole: it is a few hidden x experts GEMMs), so
      // its results are replicated; under sequence parallelism it routes
      // the rank's 1/N of the sequence.
      SmallVector<WorkAttr> work(op.getWorkList());
      if (op->hasAttr(kRouterAttr)) {
        if (sequenceParallel) {
          for (WorkAttr &k : work)
            k = isa<GemmWork>(k) ? splitTokens(k) : splitLocal(k);
          op.setWorkList(work);
          splitSequence(op, sequenceSplit, b);
        }
        continue;
      }
      // Sequence parallelism: outside the tensor-parallel regions, an op
      // without a GEMM (layernorm, dropout, residual add) works on 1/N of
      // the sequence; embedding lookups stay whole.
      if (sequenceParallel && !inside && llvm::none_of(work, [](WorkAttr k) {
            return k.getKind() == WorkKind::Gemm ||
                   k.getKind() == WorkKind::EmbeddingBag;
          })) {
        for (WorkAttr &k : work)
          k = splitLocal(k);
        op.setWorkList(work);
        splitSequence(op, sequenceSplit, b);
        continue;
      }
      int64_t reduceBytes = 0;
      for (WorkAttr &kernel : work) {
        auto gemm = dyn_cast<GemmWork>(kernel);
        if (!gemm) {
          if (inside) {
            if (auto elementwise = dyn_cast<ElementwiseWork>(kernel))
              splitElementCounts.insert(elementwise.getElements());
            kernel = splitLocal(kernel);
          }
          continue;
        }
        const int64_t batch = gemm.getBatch(), m = gemm.getM(), n = gemm.getN(),
                      k = gemm.getK();
        int64_t elem = dtypeBytes(gemm.getKernelDesc().dtype);
        if (inside && declaredParameters(op) == 0) {
          // Activation x activation (attention scores and context): each
          // rank multiplies its own heads, and the tensor stays split. A
          // batch of 1 is the default, which the IR leaves out.
          kernel = batch >= devices ? gemm.withBatch(divided(batch))
                                    : gemm.withM(divided(m));
          continue;
        }
        // A product of replicated tensors without weights (LLaMA's rotary
        // angles, inverse frequencies x positions) has nothing to split:
        // every rank computes it whole.
        if (!inside && declaredParameters(op) == 0)
          continue;
        if (!inside) {
          if (failed(checkSplit(op, gemm, "output columns", n)))
            return failure();
          columns.push_back(
              {batch, m, n, k,
               saturatedBytes(double(batch) * double(m) * double(k) * elem)});
          if (sequenceParallel)
            columnInputs.push_back({op, columns.back().inputBytes});
          kernel = gemm.withN(divided(n));
          inside = true;
        } else {
          if (failed(checkSplit(op, gemm, "input rows", k)))
            return failure();
          int64_t outputBytes =
              saturatedBytes(double(batch) * double(m) * double(n) * elem);
          reduceBytes =
              saturatedBytes(double(reduceBytes) + double(outputBytes));
          rows.push_back({batch, m, n, k, outputBytes});
          kernel = gemm.withK(divided(k));
          inside = false;
        }
      }
      op.setWorkList(work);
      carried = inside;
      if (inside)
        markSplit(op);
      if (reduceBytes > 0)
        forwardReduces.push_back({op, reduceBytes});
    }

    // Backward: split every GEMM; the dgrad GEMM of a column-parallel layer
    // (its shape, latest layer first) is followed by an all_reduce.
    SmallVector<std::pair<FrameworkOp, int64_t>> backwardReduces;
    // Sequence parallelism: gathers before backward ops (a row layer's
    // output gradient, a column layer's input for its weight gradient).
    SmallVector<std::pair<FrameworkOp, int64_t>> backwardGathers;
    // dX = dY W^T of a layer Y = X W (X: m x k, W: k x n) is an m x k GEMM
    // over n: the latest layer of that shape in `layers`, taken out.
    auto takeLayer = [](SmallVector<ColumnLayer> &layers,
                        GemmWork gemm) -> std::optional<ColumnLayer> {
      for (size_t i = layers.size(); i-- > 0;) {
        ColumnLayer c = layers[i];
        if (c.batch == gemm.getBatch() && c.m == gemm.getM() &&
            c.k == gemm.getN() && c.n == gemm.getK()) {
          layers.erase(layers.begin() + i);
          return c;
        }
      }
      return std::nullopt;
    };
    for (FrameworkOp op : ops) {
      if (!op.hasWork() || isForwardOp(op) || isOptimizerOp(op))
        continue;
      // A router's backward is whole too, or along the rank's sequence.
      const bool router = op->hasAttr(kRouterAttr);
      if (router && !sequenceParallel)
        continue;
      int64_t reduceBytes = 0, gatherBytes = 0;
      SmallVector<WorkAttr> work(op.getWorkList());
      for (WorkAttr &k : work) {
        const WorkKind kind = k.getKind();
        if (kind == WorkKind::Gemm && router) {
          k = splitTokens(k);
          continue;
        }
        if (kind == WorkKind::Attention) {
          k = splitLocal(k);
          continue;
        }
        // Under sequence parallelism every backward kernel but the GEMMs
        // and lookups works on a split tensor (heads or sequence).
        if (sequenceParallel &&
            (kind == WorkKind::Elementwise || kind == WorkKind::LayerNorm ||
             kind == WorkKind::Softmax || kind == WorkKind::Reduce)) {
          k = splitLocal(k);
          continue;
        }
        if (auto elementwise = dyn_cast<ElementwiseWork>(k)) {
          if (splitElementCounts.contains(elementwise.getElements()))
            k = splitLocal(k);
          continue;
        }
        auto gemm = dyn_cast<GemmWork>(k);
        if (!gemm)
          continue;
        TrainingPass pass = gemm.getPass();
        if (pass == TrainingPass::Dgrad || pass == TrainingPass::Bwd) {
          if (std::optional<ColumnLayer> c = takeLayer(columns, gemm)) {
            reduceBytes =
                saturatedBytes(double(reduceBytes) + double(c->inputBytes));
            if (sequenceParallel)
              gatherBytes =
                  saturatedBytes(double(gatherBytes) + double(c->inputBytes));
          } else if (sequenceParallel) {
            if (std::optional<ColumnLayer> r = takeLayer(rows, gemm))
              gatherBytes =
                  saturatedBytes(double(gatherBytes) + double(r->inputBytes));
          }
        }
        k = splitBackwardGemm(gemm);
      }
      op.setWorkList(work);
      if (reduceBytes > 0)
        backwardReduces.push_back({op, reduceBytes});
      if (gatherBytes > 0)
        backwardGathers.push_back({op, gatherBytes});
    }
    // The optimizer updates 1/N of the weights.
    for (FrameworkOp op : ops)
      if (isOptimizerOp(op))
        shareOptimizerUpdates(
            op, [&](int64_t elements) { return divideUp(elements, devices); });
    for (auto *reduces :
         {&forwardReduces, &backwardReduces, &columnInputs, &backwardGathers})
      for (auto [op, bytes] : *reduces)
        if (!withinLimit(bytes, kMaxExtent))
          return op.emitOpError("--perf-tensor-parallel: ") << limitExceeded(
                     "the all_reduce after it in bytes", bytes, kMaxExtent);
    // Ops are rebuilt when they need a result to wait on, so the all_reduces
    // go in after every scan over `ops`.
    // Gathers first: they rewire operands and never rebuild an op.
    llvm::DenseMap<Value, Value> gathered;
    for (auto [op, bytes] : columnInputs)
      addGatherBefore(op, bytes, b, gathered);
    for (auto [op, bytes] : backwardGathers) {
      // Each backward op gathers what it reads anew.
      gathered.clear();
      addGatherBefore(op, bytes, b, gathered);
    }
    for (auto [op, bytes] : forwardReduces) {
      addExchangeAfter(op, afterRow, bytes, b);
      ++numForward;
    }
    for (auto [op, bytes] : backwardReduces) {
      addExchangeAfter(op, afterRow, bytes, b);
      ++numBackward;
    }
    if (graph->hasAttr(kExpertParallelAttr))
      placeExpertExchanges(graph, b);
    if (sequenceParallel)
      graph->setAttr(kSequenceParallelAttr, b.getUnitAttr());
    graph->setAttr(kTensorParallelAttr, b.getI64IntegerAttr(devices));
    graph->setAttr(kTpAllReducesAttr,
                   b.getDenseI64ArrayAttr({numForward, numBackward}));
    return success();
  }
};
} // namespace
