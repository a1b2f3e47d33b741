//===- SynthesizeTraining.cpp - --perf-synthesize-training ----------------===//
//
// Builds one training step from an inference graph the way autograd runs it:
// the backward ops follow the forward ops in reverse order, each waiting for
// the gradients of the tensors its forward op produced, and the optimizer
// waits for every weight gradient. Which tensors need gradients follows
// autograd too: those computed from parameters, so the first layer gets no
// dgrad.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/GraphWalk.h"
#include "perf/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace perf {
#define GEN_PASS_DEF_SYNTHESIZETRAINING
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

static constexpr StringLiteral kParamsAttr = "perf.params";

/// Element size of a kernel's dtype (f32 when absent).
static int64_t dtypeSize(Operation *kernel) {
  if (auto t = kernel->getAttrOfType<TypeAttr>("dtype")) {
    Type type = t.getValue();
    if (type.isIntOrFloat())
      return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  }
  return 4;
}

/// Trainable parameters an op reads: what it declares, else the weights
/// its kernels imply.
static int64_t parameterCount(FrameworkOp op) {
  if (std::optional<int64_t> declared = declaredParameters(op))
    return *declared;
  int64_t params = 0;
  if (Block *body = op.getBodyBlockOrNull())
    for (Operation &k : *body) {
      if (auto conv = dyn_cast<Conv2dOp>(k))
        params += int64_t(conv.getK()) *
                  (int64_t(conv.getC()) / conv.getGroups()) *
                  int64_t(conv.getR()) * int64_t(conv.getS());
      else if (auto gemm = dyn_cast<GemmOp>(k))
        params += int64_t(gemm.getK()) * int64_t(gemm.getN());
      else if (auto bn = dyn_cast<BatchNormOp>(k))
        params += 2 * int64_t(bn.getChannels());
      else if (auto emb = dyn_cast<EmbeddingBagOp>(k))
        params += int64_t(emb.getTables()) * int64_t(emb.getRows()) *
                  int64_t(emb.getDim());
    }
  return params;
}

static int64_t staticElements(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && t.hasStaticShape() ? t.getNumElements() : 0;
}

namespace {
struct SynthesizeTrainingPass
    : perf::impl::SynthesizeTrainingBase<SynthesizeTrainingPass> {
  using SynthesizeTrainingBase::SynthesizeTrainingBase;

  void runOnOperation() override {
    if (optimizer != "sgd" && optimizer != "adam" && optimizer != "none") {
      getOperation().emitError("--perf-synthesize-training: optimizer must be "
                               "sgd, adam or none, got '")
          << optimizer.getValue() << "'";
      return signalPassFailure();
    }
    if (failed(forEachGraph(getOperation(),
                            [&](GraphOp graph) { return runOnGraph(graph); })))
      signalPassFailure();
  }

  /// Builds the backward kernel `desc` on the device and stream of the
  /// forward `kernel`.
  void buildOnStreamOf(OpBuilder &b, KernelOpInterface kernel,
                       const KernelDesc &desc) {
    KernelOpInterface bwd = buildKernelOp(b, kernel->getLoc(), desc);
    if (!bwd)
      return;
    if (int64_t device = kernel.getDeviceId())
      bwd->setAttr("device", b.getI64IntegerAttr(device));
    if (int64_t stream = kernel.getStreamId())
      bwd->setAttr("stream", b.getI64IntegerAttr(stream));
  }

  /// Emits the backward kernels of one forward kernel. `inputGrad`: some
  /// input of the op needs a gradient; `weights`: the op has parameters.
  void emitBackward(OpBuilder &b, KernelOpInterface kernel, FrameworkOp fwd,
                    bool inputGrad, bool weights) {
    const KernelDesc fwdDesc = kernel.getKernelDesc();
    KernelDesc d = fwdDesc;
    auto emit = [&](KernelPass pass) {
      d.pass = pass;
      buildOnStreamOf(b, kernel, d);
    };
    switch (fwdDesc.kind) {
    case KernelKind::Conv2d:
      if (inputGrad)
        emit(KernelPass::BackwardData);
      if (weights)
        emit(KernelPass::BackwardWeight);
      return;
    case KernelKind::Gemm:
      // C = A B: dA = dC B^T (m x k from m x n, n x k), dB = A^T dC.
      if (inputGrad) {
        d.n = fwdDesc.k;
        d.k = fwdDesc.n;
        d.transA = false;
        d.transB = true;
        emit(KernelPass::BackwardData);
      }
      if (weights || inputGrad) {
        d = fwdDesc;
        d.m = fwdDesc.k;
        d.k = fwdDesc.m;
        d.transA = true;
        d.transB = false;
        emit(weights ? KernelPass::BackwardWeight : KernelPass::BackwardData);
      }
      return;
    case KernelKind::Elementwise: {
      std::string fn = fwdDesc.op.empty() ? "elementwise" : fwdDesc.op;
      if (fn == "bias") {
        // dBias sums dY over all but the channel dimension; dX is dY.
        if (!weights)
          return;
        int64_t elements = fwdDesc.numElements, channels = 1;
        if (fwd->getNumResults())
          if (auto t = dyn_cast<RankedTensorType>(fwd->getResult(0).getType()))
            if (t.getRank() >= 2 && !t.isDynamicDim(1) && t.getDimSize(1) > 0 &&
                elements % t.getDimSize(1) == 0)
              channels = t.getDimSize(1);
        d = KernelDesc();
        d.kind = KernelKind::Reduce;
        d.dtype = fwdDesc.dtype;
        d.rows = channels;
        d.cols = elements / channels;
        emit(KernelPass::BackwardWeight);
        return;
      }
      // Sums pass the gradient through unchanged: autograd launches nothing.
      if (fn == "add" || fn == "sub" || fn == "sum" || !inputGrad)
        return;
      // Reads dY and the saved inputs, writes dX.
      d.numInputs = fwdDesc.numInputs + 1;
      d.op = fn + "_bwd";
      emit(KernelPass::BackwardData);
      return;
    }
    case KernelKind::Reduce:
      if (!inputGrad)
        return;
      // The gradient of a reduction broadcasts dY back over the rows.
      d = KernelDesc();
      d.kind = KernelKind::Elementwise;
      d.dtype = fwdDesc.dtype;
      d.numElements = fwdDesc.rows * fwdDesc.cols;
      d.op = "reduce_bwd";
      emit(KernelPass::BackwardData);
      return;
    case KernelKind::BatchNorm:
    case KernelKind::EmbeddingBag:
      // One kernel computes dX and the scale/shift (table) gradients.
      if (inputGrad || weights)
        emit(KernelPass::BackwardData);
      return;
    case KernelKind::Pooling:
    case KernelKind::Softmax:
    case KernelKind::LayerNorm:
    case KernelKind::Transpose:
    case KernelKind::Concat:
      if (inputGrad || (weights && fwdDesc.kind == KernelKind::LayerNorm))
        emit(KernelPass::BackwardData);
      return;
    case KernelKind::Attention:
      // Flash-attention backward recomputes the scores and runs four GEMMs:
      // about twice the forward work.
      if (inputGrad) {
        emit(KernelPass::BackwardData);
        emit(KernelPass::BackwardData);
      }
      return;
    case KernelKind::Generic:
      if (!inputGrad && !weights)
        return;
      // Data and weight gradients: twice the forward work and traffic.
      d.flops = 2 * fwdDesc.flops;
      d.bytes = 2 * fwdDesc.bytes;
      emit(KernelPass::BackwardData);
      return;
    case KernelKind::Memcpy:
    case KernelKind::Optimizer:
      // Copies and optimizer updates have no backward work.
      return;
    }
  }

  /// A dropout an inference graph left out (an ONNX Dropout node) runs in
  /// training: one kernel writing its output and mask, whose backward the
  /// synthesis then mirrors.
  void addTrainingDropout(FrameworkOp op) {
    if (!op->hasAttr("perf.training_dropout") || op->getNumResults() == 0)
      return;
    op->removeAttr("perf.training_dropout");
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() == 0)
      return;
    KernelDesc d;
    d.kind = KernelKind::Elementwise;
    d.op = "native_dropout";
    d.numElements = type.getNumElements();
    d.numInputs = 1;
    d.dtype = getDType(type.getElementType());
    OpBuilder b(op.getContext());
    b.setInsertionPointToEnd(&op.getOrCreateBodyBlock());
    buildKernelOp(b, op.getLoc(), d);
  }

  LogicalResult runOnGraph(GraphOp graph) {
    if (graph.getPhase() != "inference")
      return graph.emitError("--perf-synthesize-training: graph @")
             << graph.getSymName() << " is already a " << graph.getPhase()
             << " step";
    Block &block = graph.getBodyBlock();
    SmallVector<FrameworkOp> forward;
    for (Operation &op : block)
      if (auto fw = dyn_cast<FrameworkOp>(op))
        forward.push_back(fw);
    for (FrameworkOp op : forward)
      addTrainingDropout(op);

    // Autograd's requires_grad: tensors computed from parameters.
    llvm::DenseSet<Value> needsGrad;
    llvm::DenseMap<Operation *, int64_t> params;
    llvm::DenseSet<Operation *> inputGradOps;
    for (FrameworkOp op : forward) {
      int64_t p = parameterCount(op);
      params[op] = p;
      bool inputGrad = llvm::any_of(
          op.getInputs(), [&](Value v) { return needsGrad.contains(v); });
      if (inputGrad)
        inputGradOps.insert(op);
      if (inputGrad || p > 0)
        for (Value r : op->getResults())
          needsGrad.insert(r);
    }

    OpBuilder b(&getContext());
    b.setInsertionPointToEnd(&block);
    // Gradient contributions to each forward tensor, one per consumer. The
    // loss gradient of a tensor nobody consumes is seeded by the tensor.
    llvm::DenseMap<Value, SmallVector<Value>> gradOf;
    // Tensors a backward op must also wait for: its op's outputs, and those
    // of ops without backward work between it and its consumers.
    llvm::DenseMap<Value, SmallVector<Value>> waitsFor;
    for (FrameworkOp op : forward)
      for (Value r : op->getResults())
        if (r.use_empty())
          gradOf[r].push_back(r);
    SmallVector<Value> weightGrads;
    SmallVector<std::pair<int64_t, Type>> weightGradInfo;
    int64_t totalParams = 0, totalGradBytes = 0;
    Type paramType = b.getF32Type();

    for (FrameworkOp op : llvm::reverse(forward)) {
      int64_t p = params[op];
      bool inputGrad = inputGradOps.contains(op);
      if (!inputGrad && p <= 0)
        continue;
      // The backward op reads the gradients of the op's outputs and the
      // outputs themselves (saved for backward; for the last op, the loss).
      // An op without backward work passes both on to its producers.
      llvm::SetVector<Value> grads, incoming, waits;
      for (Value r : op->getResults()) {
        for (Value g : gradOf.lookup(r))
          grads.insert(g);
        for (Value w : waitsFor.lookup(r))
          waits.insert(w);
        waits.insert(r);
      }
      incoming.insert(grads.begin(), grads.end());
      incoming.insert(waits.begin(), waits.end());
      auto passThrough = [&] {
        for (Value in : op.getInputs())
          if (needsGrad.contains(in)) {
            gradOf[in].append(grads.begin(), grads.end());
            waitsFor[in].append(waits.begin(), waits.end());
          }
      };
      Block *fwdBody = op.getBodyBlockOrNull();
      if (!fwdBody && p <= 0) {
        // Reshape-like ops: the gradient flows through without work.
        passThrough();
        continue;
      }

      SmallVector<Type> resultTypes;
      SmallVector<Value> gradInputs;
      for (Value in : op.getInputs())
        if (needsGrad.contains(in)) {
          resultTypes.push_back(in.getType());
          gradInputs.push_back(in);
        }
      // Parameters have the element type of the op's first kernel.
      int64_t elemSize = 4;
      Type opParamType = b.getF32Type();
      if (fwdBody && !fwdBody->empty()) {
        elemSize = dtypeSize(&fwdBody->front());
        if (auto t = fwdBody->front().getAttrOfType<TypeAttr>("dtype"))
          opParamType = t.getValue();
      }
      if (p > 0)
        resultTypes.push_back(RankedTensorType::get({p}, opParamType));

      auto bwd = FrameworkOp::create(
          b, op.getLoc(), resultTypes,
          b.getStringAttr(op.getOpName().str() + ".backward"),
          incoming.getArrayRef(), op.getDeviceAttr());
      for (StringRef kept :
           {StringRef("onnx.name"), StringRef(PerfDialect::kLayerAttr),
            StringRef(PerfDialect::kExpertAttr)})
        if (Attribute a = op->getAttr(kept))
          bwd->setAttr(kept, a);

      {
        OpBuilder::InsertionGuard guard(b);
        Block &body = bwd.getOrCreateBodyBlock();
        b.setInsertionPointToEnd(&body);
        // Several consumers: their gradient contributions are summed first.
        for (Value r : op->getResults()) {
          size_t n = gradOf.lookup(r).size();
          int64_t elements = staticElements(r.getType());
          if (n < 2 || elements <= 0)
            continue;
          KernelDesc sum;
          sum.kind = KernelKind::Elementwise;
          sum.pass = KernelPass::BackwardData;
          sum.dtype = getDType(mlir::getElementTypeOrSelf(r.getType()));
          sum.numElements = elements;
          sum.numInputs = static_cast<int64_t>(n);
          sum.flopsPerElement = static_cast<double>(n - 1);
          sum.op = "grad_accumulate";
          if (KernelOpInterface k = buildKernelOp(b, op.getLoc(), sum))
            if (op.getDevice() != 0)
              k->setAttr("device", op.getDeviceAttr());
        }
        if (fwdBody)
          for (Operation &k : llvm::reverse(*fwdBody))
            if (auto kernel = dyn_cast<KernelOpInterface>(k))
              emitBackward(b, kernel, op, inputGrad, p > 0);
        // A tied weight's gradient is added into its parameter's
        // (autograd's AccumulateGrad: one add over the weight).
        if (int64_t tied = std::min(declaredTiedParameters(op), p); tied > 0) {
          KernelDesc accumulate;
          accumulate.kind = KernelKind::Elementwise;
          accumulate.pass = KernelPass::BackwardWeight;
          accumulate.dtype = getDType(opParamType);
          accumulate.numElements = tied;
          accumulate.numInputs = 2;
          accumulate.op = "grad_accumulate";
          if (KernelOpInterface k = buildKernelOp(b, op.getLoc(), accumulate))
            if (op.getDevice() != 0)
              k->setAttr("device", op.getDeviceAttr());
        }
        if (body.empty())
          bwd.getBody().getBlocks().clear();
      }
      if (!bwd.getBodyBlockOrNull() && p <= 0) {
        // No work (a sum): the gradient flows through, as in autograd.
        bwd->erase();
        passThrough();
        continue;
      }
      for (auto [in, grad] : llvm::zip(gradInputs, bwd->getResults()))
        gradOf[in].push_back(grad);

      if (p > 0) {
        // Tied copies are reduced and updated with their parameter.
        int64_t own = p - std::min(declaredTiedParameters(op), p);
        int64_t gradBytes = own * elemSize;
        bwd->setAttr(kGradBytesAttr, b.getI64IntegerAttr(gradBytes));
        bwd->setAttr(kParamsAttr, b.getI64IntegerAttr(own));
        totalParams += own;
        totalGradBytes += gradBytes;
        weightGrads.push_back(bwd->getResults().back());
        weightGradInfo.push_back({own, opParamType});
        paramType = opParamType;
      }
    }

    // The optimizer steps after the last gradient: one multi-tensor kernel
    // (torch.optim's foreach path) or one kernel per parameterized layer.
    auto addOptimizer = [&](ValueRange grads, int64_t elements, Type type) {
      auto opt = FrameworkOp::create(b, graph.getLoc(), TypeRange{},
                                     b.getStringAttr("optimizer::" + optimizer),
                                     grads, b.getI64IntegerAttr(0));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(&opt.getOrCreateBodyBlock());
      KernelDesc update;
      update.kind = KernelKind::Optimizer;
      update.pass = KernelPass::Update;
      update.dtype = getDType(type);
      update.numElements = elements;
      update.op = optimizer;
      buildKernelOp(b, graph.getLoc(), update);
    };
    if (optimizer == "none") {
      // Forward and backward only, as step-time benchmarks often measure.
    } else if (totalParams > 0) {
      if (perLayer) {
        for (auto [grad, info] : llvm::zip(weightGrads, weightGradInfo))
          if (info.first > 0)
            addOptimizer(ValueRange{grad}, info.first, info.second);
      } else {
        addOptimizer(weightGrads, totalParams, paramType);
      }
    } else {
      graph.emitWarning("--perf-synthesize-training: graph @")
          << graph.getSymName()
          << " has no parameters; no optimizer step is added";
    }

    graph.setPhase("training");
    graph->setAttr(kGradBytesAttr, b.getI64IntegerAttr(totalGradBytes));
    graph->setAttr("perf.parameters", b.getI64IntegerAttr(totalParams));
    return success();
  }
};
} // namespace
