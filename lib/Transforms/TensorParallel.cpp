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
#include "llvm/ADT/ScopeExit.h"

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

  /// A GEMM laid out over the ranks: its shape, and the bytes of its input
  /// (a column-parallel layer's, all-reduced as its input gradient) or of
  /// its output (a row-parallel layer's).
  struct SplitGemm {
    int64_t batch, m, n, k;
    int64_t bytes;
  };

  /// How the forward pass laid out one op, which the backward op autograd
  /// runs for it (the same perf.autograd_pair) follows.
  struct ForwardLayout {
    /// Its non-GEMM kernels work on split tensors, or its results are split.
    bool split = false;
    SmallVector<SplitGemm, 1> columns, rows;
  };

  /// What laying out one graph collects before it inserts the collectives.
  struct GraphLayout {
    bool hasDataFlow = false;
    /// Without data flow: whether the last op left the tensors split.
    bool carried = false;
    llvm::DenseSet<Value> splitValues, sequenceSplit;
    llvm::DenseMap<int64_t, ForwardLayout> byPair;
    /// The collectives to insert: after a forward or backward op (with the
    /// bytes reduced), before a column-parallel op or a backward op (under
    /// sequence parallelism, the bytes gathered).
    SmallVector<std::pair<FrameworkOp, int64_t>> forwardReduces,
        backwardReduces, columnGathers, backwardGathers;
  };

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
    GraphLayout layout;
    shareGradients(ops, b);
    if (failed(layOutForward(graph, ops, layout, b)) ||
        failed(layOutBackward(ops, layout)))
      return failure();
    // The optimizer updates 1/N of the weights.
    for (FrameworkOp op : ops)
      if (isOptimizerOp(op))
        shareOptimizerUpdates(
            op, [&](int64_t elements) { return divideUp(elements, devices); });
    if (failed(insertCollectives(layout, b)))
      return failure();
    if (graph->hasAttr(kExpertParallelAttr))
      placeExpertExchanges(graph, b);
    if (sequenceParallel)
      graph->setAttr(kSequenceParallelAttr, b.getUnitAttr());
    graph->setAttr(kTensorParallelAttr, b.getI64IntegerAttr(devices));
    graph->setAttr(
        kTpAllReducesAttr,
        b.getDenseI64ArrayAttr({int64_t(layout.forwardReduces.size()),
                                int64_t(layout.backwardReduces.size())}));
    return success();
  }

  /// Each rank holds 1/N of the weights, so it produces 1/N of the gradients
  /// (what data parallelism on top reduces), a router's whole.
  void shareGradients(ArrayRef<FrameworkOp> ops, OpBuilder &b) {
    for (FrameworkOp op : ops)
      if (auto g = op->getAttrOfType<IntegerAttr>(kGradBytesAttr);
          g && !op->hasAttr(kRouterAttr))
        op->setAttr(kGradBytesAttr,
                    b.getI64IntegerAttr(divideUp(g.getInt(), devices)));
  }

  /// Forward: a GEMM that reads a replicated tensor is column-parallel (its
  /// output is split over the ranks), one that reads a split tensor is
  /// row-parallel (its all-reduced output is replicated again), and the
  /// kernels between them work on split tensors. Whether an op's input is
  /// split follows the data flow between ops (separate Q, K and V GEMMs are
  /// three column-parallel layers); a graph without data-flow edges
  /// alternates column and row GEMMs in launch order.
  LogicalResult layOutForward(GraphOp graph, ArrayRef<FrameworkOp> ops,
                              GraphLayout &layout, OpBuilder &b) {
    layout.hasDataFlow = llvm::any_of(ops, [](FrameworkOp op) {
      return isForwardOp(op) && op->getNumOperands() > 0;
    });
    if (sequenceParallel && !layout.hasDataFlow)
      return graph.emitError()
             << "--perf-tensor-parallel: sequence-parallel follows the data "
                "flow, and graph @"
             << graph.getSymName() << " has no data-flow edges";
    for (FrameworkOp op : ops)
      if (isForwardOp(op) && failed(layOutForwardOp(op, layout, b)))
        return failure();
    return success();
  }

  LogicalResult layOutForwardOp(FrameworkOp op, GraphLayout &layout,
                                OpBuilder &b) {
    auto readsAny = [&](const llvm::DenseSet<Value> &values) {
      return llvm::any_of(op->getOperands(),
                          [&](Value v) { return values.contains(v); });
    };
    bool inside =
        layout.hasDataFlow ? readsAny(layout.splitValues) : layout.carried;
    // The op's results are split; the memory analysis reads the mark.
    auto markSplit = [&] {
      layout.splitValues.insert(op->result_begin(), op->result_end());
      op->setAttr(kTensorSplitAttr, b.getUnitAttr());
    };
    // What the backward op of this one reads back (every exit below).
    ForwardLayout own;
    llvm::scope_exit record([&] {
      if (std::optional<int64_t> pair = autogradPairOf(op))
        layout.byPair[*pair] = std::move(own);
    });
    if (!op.hasWork()) {
      // A view or reshape of a split tensor is split.
      own.split = inside;
      if (inside)
        markSplit();
      else if (sequenceParallel && readsAny(layout.sequenceSplit))
        splitSequence(op, layout.sequenceSplit, b);
      return success();
    }
    // A mixture-of-experts router runs whole on every rank (Megatron-LM
    // keeps its weights whole: it is a few hidden x experts GEMMs), so its
    // results are replicated; under sequence parallelism it routes the
    // rank's 1/N of the sequence.
    SmallVector<WorkAttr> work(op.getWorkList());
    if (op->hasAttr(kRouterAttr)) {
      if (sequenceParallel) {
        for (WorkAttr &k : work)
          k = isa<GemmWork>(k) ? splitTokens(k) : splitLocal(k);
        op.setWorkList(work);
        splitSequence(op, layout.sequenceSplit, b);
      }
      return success();
    }
    // Sequence parallelism: outside the tensor-parallel regions, an op
    // without a GEMM (layernorm, dropout, residual add) works on 1/N of the
    // sequence; embedding lookups stay whole.
    if (sequenceParallel && !inside && llvm::none_of(work, [](WorkAttr k) {
          return k.getKind() == WorkKind::Gemm ||
                 k.getKind() == WorkKind::EmbeddingBag;
        })) {
      for (WorkAttr &k : work)
        k = splitLocal(k);
      op.setWorkList(work);
      splitSequence(op, layout.sequenceSplit, b);
      return success();
    }
    int64_t reduceBytes = 0;
    for (WorkAttr &kernel : work) {
      auto gemm = dyn_cast<GemmWork>(kernel);
      if (!gemm) {
        if (inside) {
          own.split = true;
          kernel = splitLocal(kernel);
        }
        continue;
      }
      if (failed(splitForwardGemm(op, gemm, inside, own)))
        return failure();
      kernel = gemm;
    }
    for (const SplitGemm &row : own.rows)
      reduceBytes = saturatedBytes(double(reduceBytes) + double(row.bytes));
    if (sequenceParallel)
      for (const SplitGemm &column : own.columns)
        layout.columnGathers.push_back({op, column.bytes});
    op.setWorkList(work);
    layout.carried = inside;
    if (inside) {
      own.split = true;
      markSplit();
    }
    if (reduceBytes > 0)
      layout.forwardReduces.push_back({op, reduceBytes});
    return success();
  }

  /// Splits one forward GEMM of `op` whose input is split (`inside`) or
  /// not, and says whether its output is.
  LogicalResult splitForwardGemm(FrameworkOp op, GemmWork &gemm, bool &inside,
                                 ForwardLayout &own) {
    const int64_t batch = gemm.getBatch(), m = gemm.getM(), n = gemm.getN(),
                  k = gemm.getK();
    int64_t elem = dtypeBytes(gemm.getKernelDesc().dtype);
    if (declaredParameters(op) == 0) {
      // Activation x activation (attention scores and context): each rank
      // multiplies its own heads, and the tensor stays split. A batch of 1
      // is the default, which the IR leaves out. A product of replicated
      // tensors without weights (LLaMA's rotary angles, inverse frequencies
      // x positions) has nothing to split: every rank computes it whole.
      if (inside)
        gemm = cast<GemmWork>(batch >= devices ? gemm.withBatch(divided(batch))
                                               : gemm.withM(divided(m)));
      return success();
    }
    if (!inside) {
      if (failed(checkSplit(op, gemm, "output columns", n)))
        return failure();
      own.columns.push_back(
          {batch, m, n, k,
           saturatedBytes(double(batch) * double(m) * double(k) * elem)});
      gemm = cast<GemmWork>(gemm.withN(divided(n)));
      inside = true;
      return success();
    }
    if (failed(checkSplit(op, gemm, "input rows", k)))
      return failure();
    own.rows.push_back(
        {batch, m, n, k,
         saturatedBytes(double(batch) * double(m) * double(n) * elem)});
    gemm = cast<GemmWork>(gemm.withK(divided(k)));
    inside = false;
    return success();
  }

  /// Backward: every backward op is laid out as its forward op was (the
  /// op of the same perf.autograd_pair). Its GEMMs are split along their
  /// largest dimension; the input gradient of a column-parallel layer (the
  /// dgrad of its GEMM) is all-reduced after the op, and under sequence
  /// parallelism the op first gathers what it reads of the sequence.
  LogicalResult layOutBackward(ArrayRef<FrameworkOp> ops, GraphLayout &layout) {
    for (FrameworkOp op : ops) {
      if (!op.hasWork() || isForwardOp(op) || isOptimizerOp(op))
        continue;
      // A router's backward is whole too, or along the rank's sequence.
      const bool router = op->hasAttr(kRouterAttr);
      if (router && !sequenceParallel)
        continue;
      std::optional<int64_t> pair = autogradPairOf(op);
      auto forward = pair ? layout.byPair.find(*pair) : layout.byPair.end();
      if (forward == layout.byPair.end())
        return op.emitOpError("--perf-tensor-parallel: backward op '")
               << op.getOpName()
               << "' names no forward op (perf.autograd_pair), so its "
                  "layout is unknown; --perf-synthesize-training and the "
                  "model importers write the pair";
      layOutBackwardOp(op, forward->second, router, layout);
    }
    return success();
  }

  void layOutBackwardOp(FrameworkOp op, ForwardLayout &forward, bool router,
                        GraphLayout &layout) {
    // dX = dY W^T of a layer Y = X W (X: m x k, W: k x n) is an m x k GEMM
    // over n: that layer among the forward op's, taken out.
    auto takeLayer = [](SmallVector<SplitGemm, 1> &layers,
                        GemmWork gemm) -> std::optional<SplitGemm> {
      for (size_t i = layers.size(); i-- > 0;) {
        SplitGemm c = layers[i];
        if (c.batch == gemm.getBatch() && c.m == gemm.getM() &&
            c.k == gemm.getN() && c.n == gemm.getK()) {
          layers.erase(layers.begin() + i);
          return c;
        }
      }
      return std::nullopt;
    };
    int64_t reduceBytes = 0, gatherBytes = 0;
    auto add = [](int64_t &total, int64_t bytes) {
      total = saturatedBytes(double(total) + double(bytes));
    };
    SmallVector<WorkAttr> work(op.getWorkList());
    for (WorkAttr &k : work) {
      const WorkKind kind = k.getKind();
      if (kind == WorkKind::Gemm && router) {
        k = splitTokens(k);
        continue;
      }
      // Attention works on the rank's heads; under sequence parallelism
      // every other backward kernel but the GEMMs and lookups works on a
      // split tensor (heads or sequence); otherwise an element-wise kernel
      // is split where its forward op's tensors were.
      if (kind == WorkKind::Attention ||
          (sequenceParallel &&
           (kind == WorkKind::Elementwise || kind == WorkKind::LayerNorm ||
            kind == WorkKind::Softmax || kind == WorkKind::Reduce)) ||
          (kind == WorkKind::Elementwise && forward.split)) {
        k = splitLocal(k);
        continue;
      }
      auto gemm = dyn_cast<GemmWork>(k);
      if (!gemm)
        continue;
      TrainingPass pass = gemm.getPass();
      if (pass == TrainingPass::Dgrad || pass == TrainingPass::Bwd) {
        if (std::optional<SplitGemm> c = takeLayer(forward.columns, gemm)) {
          add(reduceBytes, c->bytes);
          if (sequenceParallel)
            add(gatherBytes, c->bytes);
        } else if (sequenceParallel) {
          if (std::optional<SplitGemm> r = takeLayer(forward.rows, gemm))
            add(gatherBytes, r->bytes);
        }
      }
      k = splitBackwardGemm(gemm);
    }
    op.setWorkList(work);
    if (reduceBytes > 0)
      layout.backwardReduces.push_back({op, reduceBytes});
    if (gatherBytes > 0)
      layout.backwardGathers.push_back({op, gatherBytes});
  }

  /// Inserts the collectives the layout asked for. Ops are rebuilt when
  /// they need a result to wait on, so this comes after every scan over the
  /// graph's ops; the gathers first, which rewire operands and never
  /// rebuild an op.
  LogicalResult insertCollectives(GraphLayout &layout, OpBuilder &b) {
    for (auto *list : {&layout.forwardReduces, &layout.backwardReduces,
                       &layout.columnGathers, &layout.backwardGathers})
      for (auto [op, bytes] : *list)
        if (!withinLimit(bytes, kMaxExtent))
          return op.emitOpError("--perf-tensor-parallel: ") << limitExceeded(
                     "the all_reduce after it in bytes", bytes, kMaxExtent);
    const Exchange afterRow =
        sequenceParallel ? Exchange::ReduceScatter : Exchange::AllReduce;
    llvm::DenseMap<Value, Value> gathered;
    for (auto [op, bytes] : layout.columnGathers)
      addGatherBefore(op, bytes, b, gathered);
    for (auto [op, bytes] : layout.backwardGathers) {
      // Each backward op gathers what it reads anew.
      gathered.clear();
      addGatherBefore(op, bytes, b, gathered);
    }
    for (auto *list : {&layout.forwardReduces, &layout.backwardReduces})
      for (auto [op, bytes] : *list)
        addExchangeAfter(op, afterRow, bytes, b);
    return success();
  }
};
} // namespace
