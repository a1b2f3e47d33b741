//===- OnnxKernels.cpp - Lowering of ONNX nodes to kernel descriptors -----===//
//
// Each ONNX op maps to the library calls a cuDNN/cuBLAS runtime makes for it:
// a convolution with bias is a conv kernel plus a bias add (cuDNN adds bias
// with a separate cudnnAddTensor unless fused), Gemm is one cuBLAS call, and
// activations, pooling and normalisation are one kernel each. Shapes come
// from ONNX shape inference; a node whose shapes are unknown is lowered with
// what is known and counts zero for the rest.
//
// Each family of ops is one rule, and OnnxRuleTable maps op types to rules
// (as the ATen table of TraceKernels.cpp does), so supporting another op is
// one table entry.
//
//===----------------------------------------------------------------------===//

#include "perf/Import/OnnxKernels.h"

#include "llvm/ADT/StringSet.h"
#include <algorithm>
#include <numeric>
#include <optional>

using namespace perf;

double perf::kernelMacs(const KernelDesc &desc) {
  switch (desc.kind) {
  case KernelKind::Gemm:
  case KernelKind::Conv2d:
    return desc.totalFlops() / 2;
  case KernelKind::Attention:
    // The two GEMMs; the softmax adds no multiply-adds.
    return double(desc.batch) * desc.heads * 2.0 * desc.m * desc.m * desc.k;
  default:
    return 0;
  }
}

namespace {

int64_t elems(const OnnxValueInfo *v) {
  return v ? std::max<int64_t>(v->numElements(), 0) : 0;
}

DType dtypeOf(const OnnxValueInfo *v) { return v ? v->dtype : DType::F32; }

KernelDesc moved(KernelKind kind, int64_t numElements, DType dtype) {
  KernelDesc d;
  d.kind = kind;
  d.numElements = numElements;
  d.dtype = dtype;
  return d;
}

/// Pads that reproduce the inferred output size with KernelDesc's
/// symmetric formula: asymmetric or auto padding is folded into the input
/// extent.
void setSpatial(int64_t in, int64_t outSize, int64_t kernel, int64_t stride,
                int64_t dilation, int64_t padBegin, int64_t padEnd,
                int64_t &descIn, int64_t &descPad) {
  int64_t total = padBegin + padEnd;
  if (outSize > 0) {
    int64_t needed = (outSize - 1) * stride + dilation * (kernel - 1) + 1;
    total = std::max<int64_t>(needed - in, total < 0 ? 0 : total);
    // Ceil-mode pooling and SAME padding need the extra row/column.
    total = std::max<int64_t>(total, needed - in);
  }
  descPad = total / 2;
  descIn = in + (total - 2 * descPad);
}

/// rows x cols split of `v` at `axis` (Softmax before opset 13 flattens).
void splitAt(const OnnxValueInfo *v, int64_t axis, bool onlyAxis, int64_t &rows,
             int64_t &cols) {
  rows = cols = 0;
  if (!v || !v->isFullyKnown() || v->shape.empty())
    return;
  int64_t rank = v->shape.size();
  if (axis < 0)
    axis += rank;
  axis = std::clamp<int64_t>(axis, 0, rank - 1);
  int64_t total = std::max<int64_t>(v->numElements(), 0);
  cols = 1;
  if (onlyAxis)
    cols = v->shape[axis];
  else
    for (int64_t i = axis; i < rank; ++i)
      cols *= v->shape[i];
  rows = cols ? total / cols : 0;
}

/// What a rule sees: the node, the graph that types its values, the ai.onnx
/// opset, and the lowered node its kernels go to.
struct RuleContext {
  const OnnxGraph &graph;
  int64_t opset;
  const OnnxNode &node;
  llvm::StringRef op;
  OnnxLoweredNode &result;

  const OnnxValueInfo *value(unsigned i, bool output) const {
    const auto &names = output ? node.outputs : node.inputs;
    if (i >= names.size() || names[i].empty())
      return nullptr;
    return graph.lookup(names[i]);
  }
  const OnnxValueInfo *in(unsigned i) const { return value(i, false); }
  const OnnxValueInfo *out(unsigned i) const { return value(i, true); }
  /// Element type of the first input, the type most kernels compute in.
  DType inputType() const { return dtypeOf(in(0)); }
  /// Whether optional input `i` is given (a bias, for instance).
  bool hasInput(unsigned i) const {
    return i < node.inputs.size() && !node.inputs[i].empty();
  }
  void add(llvm::StringRef role, KernelDesc d) {
    d.name = "";
    result.kernels.push_back({role.str(), std::move(d)});
  }
};

using Rule = void (*)(RuleContext &);

OnnxLoweredNode lowerNode(const OnnxGraph &graph, int64_t opset,
                          const OnnxNode &n);

/// Fills `d` from a convolution or pooling node whose shapes are known and
/// whose window is 1-D or 2-D; false otherwise.
bool convLike(const RuleContext &c, KernelDesc &d, bool pooling) {
  const OnnxNode &n = c.node;
  const OnnxValueInfo *x = c.in(0), *y = c.out(0);
  // The output has the input's rank ([N, C, spatial...]); a model that says
  // otherwise (shape inference skipped) falls back to a generic kernel.
  if (!x || !y || !x->hasShape || !y->hasShape || x->shape.size() < 3 ||
      y->shape.size() != x->shape.size() || !x->isFullyKnown() ||
      !y->isFullyKnown())
    return false;
  unsigned spatial = x->shape.size() - 2;
  if (spatial > 2)
    return false;
  std::vector<int64_t> kshape = n.getInts("kernel_shape");
  if (!pooling) {
    const OnnxValueInfo *w = c.in(1);
    if (!w || !w->isFullyKnown() || w->shape.size() != x->shape.size())
      return false;
    d.outChannels = w->shape[0];
    kshape.assign(w->shape.begin() + 2, w->shape.end());
    d.groups = n.getInt("group", 1);
  }
  if (n.opType.rfind("Global", 0) == 0)
    kshape.assign(x->shape.begin() + 2, x->shape.end());
  if (kshape.size() != spatial)
    return false;
  std::vector<int64_t> strides = n.getInts("strides"),
                       dil = n.getInts("dilations"), pads = n.getInts("pads");
  strides.resize(spatial, 1);
  dil.resize(spatial, 1);
  pads.resize(2 * spatial, 0);
  d.batch = x->shape[0];
  d.c = x->shape[1];
  d.dtype = x->dtype;
  std::vector<int64_t> inSz(x->shape.begin() + 2, x->shape.end()),
      outSz(y->shape.begin() + 2, y->shape.end());
  // A 1-D window is a 2-D one of height 1.
  if (spatial == 1) {
    inSz.insert(inSz.begin(), 1);
    outSz.insert(outSz.begin(), 1);
    kshape.insert(kshape.begin(), 1);
    strides.insert(strides.begin(), 1);
    dil.insert(dil.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
  }
  d.r = kshape[0];
  d.s = kshape[1];
  d.strideH = strides[0];
  d.strideW = strides[1];
  d.dilationH = dil[0];
  d.dilationW = dil[1];
  setSpatial(inSz[0], outSz[0], d.r, d.strideH, d.dilationH, pads[0], pads[2],
             d.h, d.padH);
  setSpatial(inSz[1], outSz[1], d.s, d.strideW, d.dilationW, pads[1], pads[3],
             d.w, d.padW);
  return true;
}

/// Fills `d` from a Gemm or MatMul node whose operand shapes are known;
/// false otherwise.
bool gemmShape(const RuleContext &c, KernelDesc &d) {
  const OnnxNode &n = c.node;
  const OnnxValueInfo *a = c.in(0), *b = c.in(1), *y = c.out(0);
  if (!a || !b || !a->isFullyKnown() || !b->isFullyKnown())
    return false;
  d.kind = KernelKind::Gemm;
  d.dtype = a->dtype;
  if (n.opType == "Gemm") {
    if (a->shape.size() != 2 || b->shape.size() != 2)
      return false;
    d.transA = n.getInt("transA", 0);
    d.transB = n.getInt("transB", 0);
    d.m = d.transA ? a->shape[1] : a->shape[0];
    d.k = d.transA ? a->shape[0] : a->shape[1];
    d.n = d.transB ? b->shape[0] : b->shape[1];
    return true;
  }
  // MatMul: numpy semantics; 1-D operands gain a unit dimension.
  std::vector<int64_t> as = a->shape, bs = b->shape;
  if (as.size() == 1)
    as.insert(as.begin(), 1);
  if (bs.size() == 1)
    bs.push_back(1);
  if (as.size() < 2 || bs.size() < 2)
    return false;
  d.m = as[as.size() - 2];
  d.k = as.back();
  d.n = bs.back();
  d.batch = 1;
  if (y && y->isFullyKnown() && y->shape.size() >= 2) {
    for (size_t i = 0; i + 2 < y->shape.size(); ++i)
      d.batch *= y->shape[i];
  } else {
    for (size_t i = 0; i + 2 < as.size(); ++i)
      d.batch *= as[i];
  }
  // [..., M, K] x [K, N] (a Linear's weight): the leading dimensions are
  // rows of one GEMM over the flattened tokens, as PyTorch runs it.
  if (b->shape.size() == 2 && as.size() > 2) {
    d.m *= d.batch;
    d.batch = 1;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Rules, one per family of ONNX ops
//===----------------------------------------------------------------------===//

/// Views, shapes and weight materialisation: no kernel and no cost.
void metadataRule(RuleContext &c) { c.result.metadataOnly = true; }

/// Dropout is the identity at inference; a training step runs it (opset <
/// 12 gives the ratio as an attribute, later opsets as an input).
void dropoutRule(RuleContext &c) {
  c.result.metadataOnly = true;
  c.result.trainingDropout = c.opset >= 12 || c.node.getFloat("ratio", 0.5) > 0;
}

void convRule(RuleContext &c) {
  const OnnxValueInfo *y = c.out(0);
  DType dt = c.inputType();
  KernelDesc d;
  d.kind = KernelKind::Conv2d;
  if (!convLike(c, d, /*pooling=*/false)) {
    // 3-D or unknown-shape convolutions: FLOPs from the output size.
    const OnnxValueInfo *w = c.in(1);
    d = KernelDesc();
    d.kind = KernelKind::Generic;
    if (w && w->isFullyKnown() && y && y->isFullyKnown() &&
        w->shape.size() >= 2) {
      double perOut = 1;
      for (size_t i = 1; i < w->shape.size(); ++i)
        perOut *= w->shape[i];
      d.flops = 2.0 * elems(y) * perOut;
      d.bytes = dtypeBytes(dt) * (elems(c.in(0)) + elems(w) + elems(y));
    }
  }
  c.add("conv", d);
  if (c.hasInput(2))
    c.add("bias", elementwiseKernel(elems(y), 2, 1, dt));
}

/// Priced as the data-gradient convolution it is.
void convTransposeRule(RuleContext &c) {
  const OnnxValueInfo *y = c.out(0);
  DType dt = c.inputType();
  KernelDesc d;
  d.kind = KernelKind::Generic;
  const OnnxValueInfo *w = c.in(1);
  if (w && w->isFullyKnown() && w->shape.size() >= 2) {
    double perIn = 1;
    for (size_t i = 1; i < w->shape.size(); ++i)
      perIn *= w->shape[i];
    d.flops = 2.0 * elems(c.in(0)) * perIn;
    d.bytes = dtypeBytes(dt) * (elems(c.in(0)) + elems(w) + elems(y));
  }
  c.add("conv_transpose", d);
  if (c.hasInput(2))
    c.add("bias", elementwiseKernel(elems(y), 2, 1, dt));
}

/// One cuBLAS call; an empty GEMM when the shapes are unknown.
void gemmRule(RuleContext &c) {
  KernelDesc d;
  if (!gemmShape(c, d)) {
    d = KernelDesc();
    d.kind = KernelKind::Gemm;
  }
  c.add("gemm", d);
}

/// Inference: (x - mean) * scale / sqrt(var + eps) + bias.
void batchNormRule(RuleContext &c) {
  KernelDesc d = moved(KernelKind::BatchNorm, elems(c.out(0)), c.inputType());
  d.flopsPerElement = 2;
  const OnnxValueInfo *x = c.in(0);
  d.c = x && x->hasShape && x->shape.size() > 1 ? x->shape[1] : 1;
  c.add("batchnorm", d);
}

void layerNormRule(RuleContext &c) {
  KernelDesc d;
  d.kind = KernelKind::LayerNorm;
  d.dtype = c.inputType();
  splitAt(c.in(0), c.node.getInt("axis", -1), false, d.rows, d.cols);
  c.add("layernorm", d);
}

/// One element-wise kernel over the output, named after the op.
void unaryKernel(RuleContext &c, double flopsPerElement) {
  c.add(c.op.lower(),
        elementwiseKernel(elems(c.out(0)), 1, flopsPerElement, c.inputType()));
}

void unaryRule(RuleContext &c) { unaryKernel(c, 1); }

/// Transcendentals are counted as a few operations, as roofline models do.
void transcendentalRule(RuleContext &c) { unaryKernel(c, 4); }

/// Conversions and predicates move data without arithmetic.
void conversionRule(RuleContext &c) { unaryKernel(c, 0); }

void naryRule(RuleContext &c) {
  const OnnxNode &n = c.node;
  const OnnxValueInfo *y = c.out(0);
  // A broadcast operand (a bias row, a mask, a scalar) is read from cache,
  // not once per output element: only operands of the output's size (or
  // of unknown size) count as streamed inputs.
  int64_t inputs = 0, streamed = 0;
  for (unsigned i = 0; i < n.inputs.size(); ++i) {
    if (n.inputs[i].empty())
      continue;
    ++inputs;
    int64_t size = elems(c.in(i));
    streamed += size == 0 || size >= elems(y);
  }
  double flops = std::max<int64_t>(inputs - 1, 1);
  // Where(condition, x, y) moves the values, not the boolean condition.
  DType valueType = c.op == "Where" ? dtypeOf(c.in(1)) : c.inputType();
  c.add(c.op.lower(),
        elementwiseKernel(elems(y), std::max<int64_t>(streamed, 1), flops,
                          valueType));
}

/// A pooling kernel; shapes it cannot describe read the input once.
void poolingRule(RuleContext &c) {
  const OnnxValueInfo *y = c.out(0);
  KernelDesc d;
  d.kind = KernelKind::Pooling;
  if (!convLike(c, d, /*pooling=*/true)) {
    d = KernelDesc();
    d.kind = KernelKind::Generic;
    d.bytes = dtypeBytes(c.inputType()) * (elems(c.in(0)) + elems(y));
    d.flops = elems(c.in(0));
  }
  c.add("pool", d);
}

void concatRule(RuleContext &c) {
  const OnnxValueInfo *y = c.out(0);
  c.add("concat", moved(KernelKind::Concat, elems(y), dtypeOf(y)));
}

void transposeRule(RuleContext &c) {
  const OnnxValueInfo *y = c.out(0);
  c.add("transpose", moved(KernelKind::Transpose, elems(y), dtypeOf(y)));
}

/// Data movement: one read and one write of each output element.
void copyRule(RuleContext &c) {
  int64_t total = 0;
  for (unsigned i = 0; i < c.node.outputs.size(); ++i)
    total += elems(c.out(i));
  c.add(c.op.lower(), moved(KernelKind::Transpose, total, dtypeOf(c.out(0))));
}

void softmaxRule(RuleContext &c) {
  KernelDesc d;
  d.kind = KernelKind::Softmax;
  d.dtype = c.inputType();
  bool onlyAxis = c.opset >= 13;
  splitAt(c.in(0), c.node.getInt("axis", onlyAxis ? -1 : 1), onlyAxis, d.rows,
          d.cols);
  c.add("softmax", d);
}

/// SoftmaxCrossEntropyLoss / NegativeLogLikelihoodLoss over scores
/// [N, C, d1, ...]: the log-softmax over the C classes (the loss alone has
/// none), then the pick of each label's score and the reduction.
void crossEntropyRule(RuleContext &c) {
  const OnnxValueInfo *scores = c.in(0);
  if (!scores || !scores->isFullyKnown() || scores->shape.size() < 2)
    return;
  int64_t classes = scores->shape[1];
  int64_t rows = scores->numElements() / std::max<int64_t>(classes, 1);
  if (c.op == "SoftmaxCrossEntropyLoss") {
    KernelDesc s;
    s.kind = KernelKind::Softmax;
    s.dtype = c.inputType();
    s.rows = rows;
    s.cols = classes;
    c.add("log_softmax", s);
  }
  KernelDesc r;
  r.kind = KernelKind::Reduce;
  r.dtype = c.inputType();
  r.rows = 1;
  r.cols = rows;
  c.add("nll", r);
}

/// Sum of squares over `size` channels, then scale and power.
void lrnRule(RuleContext &c) {
  int64_t size = c.node.getInt("size", 5);
  c.add("lrn",
        elementwiseKernel(elems(c.out(0)), 1, 2.0 * size + 3, c.inputType()));
}

void reduceRule(RuleContext &c) {
  KernelDesc d;
  d.kind = KernelKind::Reduce;
  d.dtype = c.inputType();
  int64_t inElems = elems(c.in(0)),
          outElems = std::max<int64_t>(elems(c.out(0)), 1);
  d.rows = outElems;
  d.cols = inElems / outElems;
  c.add("reduce", d);
}

/// Row gather (embedding lookup): each output element read once from the
/// table and written once, plus the indices.
void gatherRule(RuleContext &c) {
  const OnnxValueInfo *y = c.out(0);
  KernelDesc d;
  d.kind = KernelKind::Generic;
  d.dtype = dtypeOf(y);
  d.bytes = 2.0 * dtypeBytes(d.dtype) * elems(y) + 8.0 * elems(c.in(1));
  c.add("gather", d);
}

/// A body runs once per iteration; its kernels are folded into this node
/// with FLOPs and bytes scaled by the trip count (If: the larger branch).
void controlFlowRule(RuleContext &c) {
  const OnnxNode &n = c.node;
  int64_t trips = 1;
  if (c.op == "Loop") {
    const OnnxValueInfo *m = c.in(0);
    if (m && m->intData && !m->intData->empty())
      trips = std::max<int64_t>((*m->intData)[0], 0);
  } else if (c.op == "Scan") {
    const OnnxValueInfo *x = c.in(n.inputs.size() - 1);
    if (x && x->isFullyKnown() && !x->shape.empty())
      trips = x->shape[0];
  }
  double bestFlops = -1;
  std::vector<OnnxKernel> best;
  for (const auto &[attrName, body] : n.subgraphs) {
    std::vector<OnnxKernel> kernels;
    double flops = 0;
    for (const OnnxNode &bn : body->nodes) {
      OnnxLoweredNode ln = lowerNode(*body, c.opset, bn);
      if (!ln.supported)
        c.result.supported = false;
      for (OnnxKernel &k : ln.kernels) {
        flops += k.desc.totalFlops();
        kernels.push_back(std::move(k));
      }
    }
    if (flops > bestFlops) {
      bestFlops = flops;
      best = std::move(kernels);
    }
  }
  for (OnnxKernel &k : best) {
    double f = k.desc.totalFlops() * trips, b = k.desc.totalBytes() * trips;
    if (trips != 1) {
      k.desc.flops = f;
      k.desc.bytes = b;
      // A zero-work kind would read the overrides as "unset".
      if (f == 0 && k.desc.kind != KernelKind::Generic)
        k.desc.kind = KernelKind::Generic;
    }
    c.result.kernels.push_back(std::move(k));
  }
}

/// The ai.onnx op table. The first entry for a name wins, so the groups are
/// listed in priority order. ONNX has no in-place variants, so unlike the
/// ATen table a name never falls back to another one: a name without an
/// entry is unsupported.
class OnnxRuleTable {
public:
  OnnxRuleTable() {
    on({"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Shape",
        "Size", "Constant", "ConstantOfShape", "EyeLike", "Optional",
        "OptionalGetElement", "OptionalHasElement"},
       metadataRule);
    on({"Dropout"}, dropoutRule);
    on({"Conv"}, convRule);
    on({"ConvTranspose"}, convTransposeRule);
    on({"Gemm", "MatMul"}, gemmRule);
    on({"BatchNormalization", "InstanceNormalization"}, batchNormRule);
    on({"LayerNormalization"}, layerNormRule);
    on({"Sigmoid", "Tanh", "Exp", "Log", "Erf", "Softplus", "Elu", "Selu",
        "Gelu", "HardSwish", "Mish", "Sin", "Cos"},
       transcendentalRule);
    on({"Cast", "Not", "IsNaN", "IsInf"}, conversionRule);
    on({"Relu", "Clip", "LeakyRelu", "Sqrt", "Neg", "Abs", "Reciprocal",
        "Floor", "Ceil", "Round", "HardSigmoid", "Softsign", "Sign",
        "ThresholdedRelu", "Celu", "Shrink", "CastLike", "BitShift", "CumSum"},
       unaryRule);
    on({"SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss"},
       crossEntropyRule);
    on({"Add",
        "Sub",
        "Mul",
        "Div",
        "Pow",
        "Sum",
        "Max",
        "Min",
        "Mean",
        "Equal",
        "Greater",
        "Less",
        "GreaterOrEqual",
        "LessOrEqual",
        "Where",
        "And",
        "Or",
        "Xor",
        "Mod",
        "PRelu"},
       naryRule);
    on({"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
        "LpPool"},
       poolingRule);
    on({"Concat"}, concatRule);
    on({"Transpose"}, transposeRule);
    on({"Slice", "Split", "Pad", "Tile", "Expand", "Resize", "Upsample",
        "DepthToSpace", "SpaceToDepth", "GatherElements", "ScatterND",
        "ScatterElements", "Trilu", "ReverseSequence", "Range", "OneHot",
        "GatherND", "Compress"},
       copyRule);
    on({"Softmax", "LogSoftmax", "Hardmax"}, softmaxRule);
    on({"LRN"}, lrnRule);
    on({"ArgMax", "ArgMin"}, reduceRule);
    on({"Gather"}, gatherRule);
    on({"Loop", "Scan", "If"}, controlFlowRule);
  }

  /// The rule of `op`: exact, then the Reduce* family (ReduceSum,
  /// ReduceLogSumExp, ...), whose members differ only in the operation.
  Rule lookup(llvm::StringRef op) const {
    if (auto it = rules.find(op); it != rules.end())
      return it->second;
    if (op.starts_with("Reduce"))
      return reduceRule;
    return nullptr;
  }

private:
  void on(std::initializer_list<llvm::StringRef> names, Rule rule) {
    for (llvm::StringRef name : names)
      rules.try_emplace(name, rule);
  }

  llvm::StringMap<Rule> rules;
};

const OnnxRuleTable &onnxRules() {
  static const OnnxRuleTable table;
  return table;
}

bool isMetadataOp(llvm::StringRef op) {
  return onnxRules().lookup(op) == metadataRule;
}

OnnxLoweredNode lowerNode(const OnnxGraph &graph, int64_t opset,
                          const OnnxNode &n) {
  OnnxLoweredNode r;
  r.node = &n;
  // Custom and contrib domains have no lowering, even for names ai.onnx
  // also has.
  if (!n.domain.empty() && n.domain != "ai.onnx") {
    r.supported = false;
    return r;
  }
  Rule rule = onnxRules().lookup(n.opType);
  if (!rule) {
    r.supported = false;
    return r;
  }
  RuleContext context{graph, opset, n, n.opType, r};
  rule(context);
  return r;
}

/// Operands of an op that may hold parameters, as [first, last).
struct ParameterOperands {
  unsigned first, last;
};

/// Which operands of each compute op read weights, by op type.
const llvm::StringMap<ParameterOperands> &parameterOperands() {
  constexpr unsigned all = ~0u;
  static const llvm::StringMap<ParameterOperands> table = {
      // Weights and biases (PRelu: the slope).
      {"Conv", {1, 3}},
      {"ConvTranspose", {1, 3}},
      {"Gemm", {1, 3}},
      {"PRelu", {1, 3}},
      {"LayerNormalization", {1, 3}},
      {"InstanceNormalization", {1, 3}},
      // Scale and bias; mean and var are statistics.
      {"BatchNormalization", {1, 3}},
      {"MatMul", {1, 2}},
      // The embedding table.
      {"Gather", {0, 1}},
      // Any operand: a bias added, a scale multiplied.
      {"Add", {0, all}},
      {"Mul", {0, all}},
      {"Sub", {0, all}},
      {"Sum", {0, all}}};
  return table;
}

/// The node patterns eager PyTorch runs as one kernel that an ONNX export
/// spells as several: nn.Linear's MatMul + bias Add (addmm: the bias is the
/// GEMM's epilogue) and the exact GELU (Div by sqrt(2), Erf, Add 1, Mul by
/// x, Mul by 0.5: one gelu kernel).
class EagerPatterns {
public:
  EagerPatterns(const OnnxGraph &g, std::vector<OnnxLoweredNode> &nodes)
      : g(g), nodes(nodes) {
    for (const std::string &name : g.initializers)
      constants.insert(name);
    for (unsigned i = 0; i < g.nodes.size(); ++i) {
      const OnnxNode &n = g.nodes[i];
      for (const std::string &out : n.outputs)
        if (!out.empty()) {
          producer[out] = i;
          if (n.opType == "Constant")
            constants.insert(out);
        }
      for (const std::string &in : n.inputs)
        if (!in.empty())
          consumers[in].push_back(i);
    }
  }

  void run() {
    for (unsigned i = 0; i < g.nodes.size(); ++i) {
      if (g.nodes[i].opType == "MatMul")
        linearBias(i);
      else if (g.nodes[i].opType == "Erf")
        exactGelu(i);
    }
  }

private:
  const OnnxGraph &g;
  std::vector<OnnxLoweredNode> &nodes;
  llvm::StringMap<unsigned> producer;
  llvm::StringMap<llvm::SmallVector<unsigned, 2>> consumers;
  llvm::StringSet<> constants;

  /// The only node reading `node`'s first output, when it is an `opType`
  /// node not yet fused.
  std::optional<unsigned> soleConsumer(unsigned node, llvm::StringRef opType) {
    const OnnxNode &n = g.nodes[node];
    if (n.outputs.empty() || llvm::is_contained(g.outputs, n.outputs[0]))
      return std::nullopt;
    auto it = consumers.find(n.outputs[0]);
    if (it == consumers.end() || it->second.size() != 1)
      return std::nullopt;
    unsigned c = it->second.front();
    if (g.nodes[c].opType != opType || !nodes[c].fusedInto.empty())
      return std::nullopt;
    return c;
  }
  /// The input of binary node `node` that is not `value`, when the other is.
  std::optional<std::string> otherInput(unsigned node, llvm::StringRef value) {
    const OnnxNode &n = g.nodes[node];
    if (n.inputs.size() != 2)
      return std::nullopt;
    if (n.inputs[0] == value)
      return n.inputs[1];
    if (n.inputs[1] == value)
      return n.inputs[0];
    return std::nullopt;
  }
  void fuse(unsigned node, unsigned into) {
    nodes[node].kernels.clear();
    nodes[node].fusedInto = g.nodes[into].name;
  }

  /// MatMul(x, W) + b with W and b constant and b one row: addmm.
  void linearBias(unsigned mm) {
    const OnnxNode &m = g.nodes[mm];
    if (m.inputs.size() != 2 || !constants.count(m.inputs[1]) ||
        nodes[mm].kernels.size() != 1)
      return;
    std::optional<unsigned> add = soleConsumer(mm, "Add");
    if (!add)
      return;
    std::optional<std::string> bias = otherInput(*add, m.outputs[0]);
    const OnnxValueInfo *b = bias ? g.lookup(*bias) : nullptr;
    const OnnxValueInfo *y = g.lookup(m.outputs[0]);
    if (!b || !constants.count(*bias) || !b->isFullyKnown() || !y ||
        !y->isFullyKnown() || y->shape.empty() ||
        b->numElements() != y->shape.back())
      return;
    fuse(*add, mm);
    nodes[mm].kernels.front().role = "addmm";
  }

  /// Div(x, c) | Mul(x, c) -> Erf -> Add(., 1) -> Mul(x, .) -> Mul(., 0.5).
  void exactGelu(unsigned erf) {
    const OnnxNode &e = g.nodes[erf];
    if (e.inputs.empty())
      return;
    auto scaled = producer.find(e.inputs[0]);
    if (scaled == producer.end())
      return;
    unsigned first = scaled->second;
    const OnnxNode &d = g.nodes[first];
    if ((d.opType != "Div" && d.opType != "Mul") || d.inputs.size() != 2 ||
        !constants.count(d.inputs[1]) || soleConsumer(first, "Erf") != erf)
      return;
    const std::string &x = d.inputs[0];
    std::optional<unsigned> add = soleConsumer(erf, "Add");
    if (!add)
      return;
    std::optional<std::string> one = otherInput(*add, e.outputs[0]);
    if (!one || !constants.count(*one))
      return;
    std::optional<unsigned> timesX = soleConsumer(*add, "Mul");
    if (!timesX || otherInput(*timesX, g.nodes[*add].outputs[0]) != x)
      return;
    std::optional<unsigned> half = soleConsumer(*timesX, "Mul");
    if (!half)
      return;
    std::optional<std::string> c =
        otherInput(*half, g.nodes[*timesX].outputs[0]);
    if (!c || !constants.count(*c))
      return;
    const OnnxValueInfo *in = g.lookup(x);
    if (!in || !in->isFullyKnown())
      return;
    nodes[first].kernels.clear();
    nodes[first].kernels.push_back(
        {"gelu", elementwiseKernel(in->numElements(), 1, 8, dtypeOf(in))});
    for (unsigned n : {erf, *add, *timesX, *half})
      fuse(n, first);
  }
};

} // namespace

/// Names of values that carry weights: operands of compute ops that hold
/// parameters, followed back through metadata ops to their source.
static void collectParameters(const OnnxModel &model, OnnxLowering &lowering) {
  const OnnxGraph &g = model.graph;
  llvm::StringSet<> weightLike;
  // A one-element operand of an element-wise op is a Python scalar the
  // export made a tensor (the 1 and 0.5 of a GELU, a scale), not a weight.
  auto isScalar = [&](llvm::StringRef name) {
    const OnnxValueInfo *v = g.lookup(name);
    return v && v->isFullyKnown() && v->numElements() <= 1;
  };
  auto markFrom = [&](const OnnxNode &n, unsigned first, unsigned last) {
    bool elementwiseOp =
        llvm::is_contained({llvm::StringRef("Add"), llvm::StringRef("Mul"),
                            llvm::StringRef("Sub"), llvm::StringRef("Sum")},
                           llvm::StringRef(n.opType));
    for (unsigned i = first; i < std::min<size_t>(last, n.inputs.size()); ++i)
      if (!n.inputs[i].empty() && !(elementwiseOp && isScalar(n.inputs[i])))
        weightLike.insert(n.inputs[i]);
  };
  for (const OnnxNode &n : g.nodes) {
    auto it = parameterOperands().find(n.opType);
    if (it != parameterOperands().end())
      markFrom(n, it->second.first, it->second.last);
  }
  // Back through metadata ops (Unsqueeze of a BN scale, Identity of a
  // weight): the source is the parameter.
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    if (!isMetadataOp(it->opType) || it->outputs.empty() ||
        it->inputs.empty() || it->opType == "ConstantOfShape")
      continue;
    if (weightLike.count(it->outputs[0]))
      weightLike.insert(it->inputs[0]);
  }
  llvm::StringSet<> sources;
  for (const std::string &name : g.initializers)
    sources.insert(name);
  for (const std::string &name : g.inputs)
    sources.insert(name);
  for (const OnnxNode &n : g.nodes)
    if (n.opType == "ConstantOfShape" && !n.outputs.empty())
      sources.insert(n.outputs[0]);
  llvm::StringSet<> seen;
  for (const auto &entry : weightLike) {
    llvm::StringRef name = entry.getKey();
    const OnnxValueInfo *v = g.lookup(name);
    if (!sources.count(name) || !v || !seen.insert(name).second)
      continue;
    if (v->dtype != DType::F32 && v->dtype != DType::F16 &&
        v->dtype != DType::BF16 && v->dtype != DType::F64)
      continue;
    int64_t count = v->numElements();
    if (count <= 0)
      continue;
    lowering.parameters.emplace_back(name.str(), count);
  }
  std::sort(lowering.parameters.begin(), lowering.parameters.end());
  for (const auto &p : lowering.parameters)
    if (g.lookup(p.first)->duplicateOf.empty())
      lowering.numParameters += p.second;
}

OnnxLowering perf::lowerOnnxModel(const OnnxModel &model) {
  int64_t opset = 0;
  for (const auto &[domain, version] : model.opsets)
    if (domain.empty())
      opset = version;
  OnnxLowering result;
  result.nodes.reserve(model.graph.nodes.size());
  for (const OnnxNode &n : model.graph.nodes) {
    OnnxLoweredNode lowered = lowerNode(model.graph, opset, n);
    if (!lowered.supported)
      ++result.unsupported[n.domain.empty() ? n.opType
                                            : n.domain + "::" + n.opType];
    result.nodes.push_back(std::move(lowered));
  }
  EagerPatterns(model.graph, result.nodes).run();
  collectParameters(model, result);
  return result;
}
