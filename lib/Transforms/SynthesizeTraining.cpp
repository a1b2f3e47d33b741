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
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace perf {
#define GEN_PASS_DEF_SYNTHESIZETRAINING
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

/// An element-wise kernel of the backward pass or the update that reads
/// `inputs` tensors of `elements` and writes one.
static KernelDesc elementwiseWork(KernelPass pass, DType dtype,
                                  int64_t elements, int64_t inputs,
                                  double flopsPerElement, StringRef name) {
  KernelDesc d = elementwiseKernel(elements, inputs, flopsPerElement, dtype);
  d.pass = pass;
  d.op = name.str();
  return d;
}

/// FP16 or BF16: the weights mixed precision keeps an FP32 copy of.
static bool isHalfPrecision(Type type) { return type.isF16() || type.isBF16(); }

/// Element size of a kernel's dtype (f32 when absent).
static int64_t dtypeSize(WorkAttr kernel) {
  if (Type type = kernel.getDtype())
    if (type.isIntOrFloat())
      return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  return 4;
}

/// Trainable parameters an op reads: what it declares, else the weights
/// its kernels imply.
static int64_t parameterCount(FrameworkOp op) {
  if (std::optional<int64_t> declared = declaredParameters(op))
    return *declared;
  int64_t params = 0;
  for (WorkAttr k : op.getWorkList()) {
    if (auto conv = dyn_cast<Conv2dWork>(k))
      params += conv.getK() * (conv.getC() / conv.getGroups()) * conv.getR() *
                conv.getS();
    else if (auto gemm = dyn_cast<GemmWork>(k))
      params += gemm.getK() * gemm.getN();
    else if (auto norm = dyn_cast<BatchNormWork>(k))
      params += 2 * norm.getChannels();
    else if (auto lookup = dyn_cast<EmbeddingBagWork>(k))
      params += lookup.getTables() * lookup.getRows() * lookup.getDim();
  }
  return params;
}

namespace {
/// What autograd keeps for the backward of an op until that backward runs
/// (PyTorch's derivatives.yaml: the SavedVariables of its grad_fn).
enum class Saved {
  /// Its outputs, and those of the views taken of them: what an op not in
  /// the table below is assumed to keep.
  Results,
  /// Only its result (relu, tanh, softmax: the gradient is a function of
  /// the output).
  Result,
  /// Every tensor operand (layer_norm, pow, gelu, a linear layer's input).
  Inputs,
  /// Each operand, for the gradient of the other ones (mul, matmul, div):
  /// an operand is kept when another operand needs a gradient, so a
  /// product with a constant keeps nothing.
  Products,
  /// The boolean mask (native_dropout's second result).
  Mask,
  /// Every operand and the result (fused attention keeps q, k, v and its
  /// output).
  InputsAndResult,
  /// Nothing the size of a tensor (sums, copies, index arithmetic).
  Nothing,
};

/// The ATen ops the importers emit, by what their backward keeps.
Saved savedForBackward(StringRef opName) {
  static const llvm::StringMap<Saved> table = [] {
    llvm::StringMap<Saved> t;
    auto add = [&](Saved saved, std::initializer_list<StringRef> names) {
      for (StringRef name : names)
        t[("aten::" + name).str()] = saved;
    };
    add(Saved::Result, {"_softmax", "_log_softmax", "relu", "tanh", "sigmoid",
                        "rsqrt", "exp", "sqrt"});
    add(Saved::Inputs, {"native_layer_norm", "pow", "gelu", "silu", "addmm",
                        "linear", "embedding", "log", "sin", "cos", "abs",
                        "maximum", "minimum", "nll_loss_forward"});
    add(Saved::Products, {"mul", "div", "matmul", "bmm", "mm"});
    add(Saved::Mask, {"native_dropout"});
    add(Saved::InputsAndResult,
        {"_scaled_dot_product_flash_attention",
         "_scaled_dot_product_efficient_attention", "logsumexp"});
    add(Saved::Nothing,
        {"add",         "sub",       "rsub",       "neg",        "where",
         "masked_fill", "_to_copy",  "contiguous", "clone",      "cat",
         "sum",         "mean",      "cumsum",     "repeat",     "index",
         "full",        "full_like", "zeros",      "zeros_like", "ones",
         "arange"});
    return t;
  }();
  auto it = table.find(opName);
  return it == table.end() ? Saved::Results : it->second;
}
} // namespace

/// Whether autograd can give `v` a gradient: a floating-point tensor (a
/// dropout mask, indices or token ids never get one).
static bool carriesGradient(Value v) {
  return isa<FloatType>(mlir::getElementTypeOrSelf(v.getType()));
}

static int64_t staticElements(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && t.hasStaticShape() ? t.getNumElements() : 0;
}

namespace {
struct SynthesizeTrainingPass
    : perf::impl::SynthesizeTrainingBase<SynthesizeTrainingPass> {
  using SynthesizeTrainingBase::SynthesizeTrainingBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (optimizer != "sgd" && optimizer != "adam" && optimizer != "none")
      return emitError(UnknownLoc::get(context),
                       "--perf-synthesize-training: optimizer must be sgd, "
                       "adam or none, got '")
             << optimizer.getValue() << "'";
    return success();
  }

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    if (failed(runOnGraph(getOperation())))
      signalPassFailure();
  }

  /// The graph being made a training step, where a kernel beyond the
  /// dialect's limits is reported (a weight of n x k elements above
  /// max-extent, for its optimizer update); the pass then fails.
  std::optional<Location> graphLoc;
  bool kernelBeyondLimits = false;

  WorkAttr buildTrainingKernel(const KernelDesc &desc) {
    FailureOr<WorkAttr> kernel = buildKernelWork(&getContext(), desc, [&] {
      return emitError(*graphLoc) << "--perf-synthesize-training: ";
    });
    if (failed(kernel)) {
      kernelBeyondLimits = true;
      return nullptr;
    }
    return *kernel;
  }

  /// Adds the backward kernel `desc` to `work`, on the device and stream of
  /// the forward `kernel`.
  void buildOnStreamOf(SmallVectorImpl<WorkAttr> &work, WorkAttr kernel,
                       const KernelDesc &desc) {
    WorkAttr bwd = buildTrainingKernel(desc);
    if (!bwd)
      return;
    bwd = bwd.withDevice(kernel.getDeviceId()).withStream(kernel.getStreamId());
    work.push_back(bwd);
  }

  /// Adds the backward kernels of one forward kernel to `work`. `inputGrad`:
  /// some input of the op needs a gradient; `weights`: the op has
  /// parameters.
  void emitBackward(SmallVectorImpl<WorkAttr> &work, WorkAttr kernel,
                    FrameworkOp fwd, bool inputGrad, bool weights) {
    const KernelDesc fwdDesc = kernel.getKernelDesc();
    KernelDesc d = fwdDesc;
    auto emit = [&](KernelPass pass) {
      d.pass = pass;
      buildOnStreamOf(work, kernel, d);
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
      // The gradient of a reduction broadcasts dY back over the rows; that
      // of a gather (nll_loss) fills its whole input, which is larger.
      d = KernelDesc();
      d.kind = KernelKind::Elementwise;
      d.dtype = fwdDesc.dtype;
      d.numElements = fwdDesc.rows * fwdDesc.cols;
      if (!fwd.getInputs().empty())
        d.numElements = std::max(d.numElements,
                                 staticElements(fwd.getInputs()[0].getType()));
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
      // Flash-attention's backward recomputes the scores and takes five
      // products where the forward takes two (its FLOPs, KernelDesc).
    case KernelKind::Rope:
      // The gradient of a rotation is the inverse rotation of dY.
      if (inputGrad)
        emit(KernelPass::BackwardData);
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
    case KernelKind::KvCacheWrite:
      // Copies, optimizer updates and cache writes have no backward work.
      return;
    }
  }

  /// A dropout an inference graph left out (an ONNX Dropout node) runs in
  /// training: one kernel writing its output and mask, whose backward the
  /// synthesis then mirrors.
  void addTrainingDropout(FrameworkOp op) {
    if (!op->hasAttr(kTrainingDropoutAttr) || op->getNumResults() == 0)
      return;
    op->removeAttr(kTrainingDropoutAttr);
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() == 0)
      return;
    KernelDesc d;
    d.kind = KernelKind::Elementwise;
    d.op = "native_dropout";
    d.numElements = type.getNumElements();
    d.numInputs = 1;
    d.dtype = getDType(type.getElementType());
    if (WorkAttr dropout = buildTrainingKernel(d))
      op.appendWork(dropout);
  }

  /// ATen's native_dropout returns its output and a boolean mask, which its
  /// backward keeps (a byte per element where the output would keep four).
  /// An importer that wrote only the output gets the mask added.
  FrameworkOp withDropoutMask(FrameworkOp op) {
    if (op.getOpName() != "aten::native_dropout" || op->getNumResults() != 1)
      return op;
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type)
      return op;
    OpBuilder b(op);
    SmallVector<Type> types{
        type, RankedTensorType::get(type.getShape(), b.getI1Type())};
    auto withMask =
        FrameworkOp::create(b, op.getLoc(), types, op.getOpNameAttr(),
                            op.getInputs(), op.getDeviceAttr());
    withMask->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    withMask.setWorkList(op.getWorkList());
    op->getResult(0).replaceAllUsesWith(withMask->getResult(0));
    op->erase();
    return withMask;
  }

  /// The forward tensors `op`'s backward reads besides the gradients: what
  /// autograd saved for it (savedForBackward), or for an op outside that
  /// table its outputs and the views of them (`waits`).
  SmallVector<Value> savedTensors(FrameworkOp op,
                                  const llvm::DenseSet<Value> &needsGrad,
                                  ArrayRef<Value> waits) {
    SmallVector<Value> saved;
    ValueRange inputs = op.getInputs();
    switch (savedForBackward(op.getOpName())) {
    case Saved::Results:
      saved.append(waits.begin(), waits.end());
      break;
    case Saved::Result:
      saved.push_back(op->getResult(0));
      break;
    case Saved::Inputs:
      saved.append(inputs.begin(), inputs.end());
      break;
    case Saved::Products:
      for (auto [i, in] : llvm::enumerate(inputs))
        if (llvm::any_of(llvm::enumerate(inputs), [&](auto other) {
              return other.index() != i && needsGrad.contains(other.value());
            }))
          saved.push_back(in);
      break;
    case Saved::Mask:
      if (op->getNumResults() > 1)
        saved.push_back(op->getResult(1));
      break;
    case Saved::InputsAndResult:
      saved.append(inputs.begin(), inputs.end());
      saved.push_back(op->getResult(0));
      break;
    case Saved::Nothing:
      break;
    }
    return saved;
  }

  LogicalResult runOnGraph(GraphOp graph) {
    graphLoc = graph.getLoc();
    kernelBeyondLimits = false;
    if (graph.getPhase() != "inference")
      return graph.emitError("--perf-synthesize-training: graph @")
             << graph.getSymName() << " is already a " << graph.getPhase()
             << " step";
    Block &block = graph.getBodyBlock();
    SmallVector<FrameworkOp> forward;
    for (Operation &op : block)
      if (auto fw = dyn_cast<FrameworkOp>(op))
        forward.push_back(fw);
    for (FrameworkOp &op : forward) {
      addTrainingDropout(op);
      op = withDropoutMask(op);
    }

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
          if (carriesGradient(r))
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
        if (r.use_empty() && carriesGradient(r))
          gradOf[r].push_back(r);
    SmallVector<Value> weightGrads;
    SmallVector<std::pair<int64_t, Type>> weightGradInfo;
    int64_t totalParams = 0, totalGradBytes = 0;
    Type paramType = b.getF32Type();
    // Each forward op with a backward op shares a number with it.
    int64_t pairs = 0;

    for (FrameworkOp op : llvm::reverse(forward)) {
      int64_t p = params[op];
      bool inputGrad = inputGradOps.contains(op);
      if (!inputGrad && p <= 0)
        continue;
      // The backward op reads the gradients of the op's outputs (for the
      // last op, the loss: the output itself) and what autograd saved for
      // it. An op without backward work passes both on to its producers.
      llvm::SetVector<Value> grads, incoming, waits;
      for (Value r : op->getResults()) {
        for (Value g : gradOf.lookup(r))
          grads.insert(g);
        for (Value w : waitsFor.lookup(r))
          waits.insert(w);
        waits.insert(r);
      }
      incoming.insert(grads.begin(), grads.end());
      for (Value v : savedTensors(op, needsGrad, waits.getArrayRef()))
        incoming.insert(v);
      auto passThrough = [&] {
        for (Value in : op.getInputs())
          if (needsGrad.contains(in)) {
            gradOf[in].append(grads.begin(), grads.end());
            waitsFor[in].append(waits.begin(), waits.end());
          }
      };
      if (!op.hasWork() && p <= 0) {
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
      if (op.hasWork()) {
        elemSize = dtypeSize(op.getWork(0));
        if (Type t = op.getWork(0).getDtype())
          opParamType = t;
      }
      // Mixed precision keeps a 16-bit weight's gradient in FP32.
      Type gradType = opParamType;
      if (masterWeights && isHalfPrecision(opParamType)) {
        gradType = b.getF32Type();
        elemSize = 4;
      }
      if (p > 0)
        resultTypes.push_back(RankedTensorType::get({p}, gradType));

      auto bwd = FrameworkOp::create(
          b, op.getLoc(), resultTypes,
          b.getStringAttr(op.getOpName().str() + ".backward"),
          incoming.getArrayRef(), op.getDeviceAttr());
      for (StringRef kept : {StringRef("onnx.name"), StringRef(kLayerAttr),
                             StringRef(kExpertAttr), StringRef(kRouterAttr)})
        if (Attribute a = op->getAttr(kept))
          bwd->setAttr(kept, a);

      {
        SmallVector<WorkAttr> work;
        // The backward kernels not launched from a forward kernel run on the
        // op's device.
        auto onOpDevice = [&](WorkAttr k) {
          k = k.withDevice(op.getDevice());
          work.push_back(k);
        };
        // Several consumers: their gradient contributions are summed first.
        for (Value r : op->getResults()) {
          size_t n = gradOf.lookup(r).size();
          int64_t elements = staticElements(r.getType());
          if (n < 2 || elements <= 0)
            continue;
          KernelDesc sum =
              elementwiseWork(KernelPass::BackwardData,
                              getDType(mlir::getElementTypeOrSelf(r.getType())),
                              elements, static_cast<int64_t>(n),
                              static_cast<double>(n - 1), "grad_accumulate");
          if (WorkAttr k = buildTrainingKernel(sum))
            onOpDevice(k);
        }
        for (WorkAttr kernel : llvm::reverse(op.getWorkList()))
          if (kernel.isKernel())
            emitBackward(work, kernel, op, inputGrad, p > 0);
        // A tied weight's gradient is added into its parameter's
        // (autograd's AccumulateGrad: one add over the weight).
        if (int64_t tied = std::min(declaredTiedParameters(op), p); tied > 0) {
          KernelDesc accumulate =
              elementwiseWork(KernelPass::BackwardWeight, getDType(opParamType),
                              tied, 2, 1.0, "grad_accumulate");
          if (WorkAttr k = buildTrainingKernel(accumulate))
            onOpDevice(k);
        }
        bwd.setWorkList(work);
      }
      if (!bwd.hasWork() && p <= 0) {
        // No work (a sum): the gradient flows through, as in autograd.
        bwd->erase();
        passThrough();
        continue;
      }
      IntegerAttr pair = b.getI64IntegerAttr(pairs++);
      op->setAttr(kAutogradPairAttr, pair);
      bwd->setAttr(kAutogradPairAttr, pair);
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
      KernelDesc update;
      update.kind = KernelKind::Optimizer;
      update.pass = KernelPass::Update;
      update.dtype = getDType(type);
      update.numElements = elements;
      update.op = optimizer;
      const bool master = masterWeights && isHalfPrecision(type);
      if (master)
        update.dtype = DType::F32;
      WorkAttr kernel = buildTrainingKernel(update);
      if (!kernel)
        return;
      if (!master) {
        opt.appendWork(kernel);
        return;
      }
      // The updated FP32 copy written back to the 16-bit weights (Megatron's
      // copy of main params to model params): a 4-byte read and a 2-byte
      // write per weight, the bytes of two 16-bit inputs and one output.
      SmallVector<WorkAttr, 2> work{
          cast<OptimizerWork>(kernel).withMasterWeights(true)};
      if (WorkAttr copyBack = buildTrainingKernel(
              elementwiseWork(KernelPass::Update, getDType(type), elements, 2,
                              0.0, kMasterToModelFn)))
        work.push_back(copyBack);
      opt.setWorkList(work);
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

    if (kernelBeyondLimits)
      return failure();
    graph.setPhase("training");
    graph->setAttr(kGradBytesAttr, b.getI64IntegerAttr(totalGradBytes));
    graph->setAttr(kParametersAttr, b.getI64IntegerAttr(totalParams));
    return success();
  }
};
} // namespace
