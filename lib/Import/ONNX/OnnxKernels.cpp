//===- OnnxKernels.cpp - Lowering of ONNX nodes to kernel descriptors -----===//
//
// Each ONNX op maps to the library calls a cuDNN/cuBLAS runtime makes for it:
// a convolution with bias is a conv kernel plus a bias add (cuDNN adds bias
// with a separate cudnnAddTensor unless fused), Gemm is one cuBLAS call, and
// activations, pooling and normalisation are one kernel each. Shapes come
// from ONNX shape inference; a node whose shapes are unknown is lowered with
// what is known and counts zero for the rest.
//
//===----------------------------------------------------------------------===//

#include "perf/Import/OnnxKernels.h"

#include "llvm/ADT/StringSet.h"
#include <algorithm>
#include <numeric>

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

struct NodeLowerer {
  const OnnxGraph &graph;
  int64_t opset;

  const OnnxValueInfo *value(const OnnxNode &n, unsigned i, bool output) {
    const auto &names = output ? n.outputs : n.inputs;
    if (i >= names.size() || names[i].empty())
      return nullptr;
    return graph.lookup(names[i]);
  }
  const OnnxValueInfo *in(const OnnxNode &n, unsigned i) {
    return value(n, i, false);
  }
  const OnnxValueInfo *out(const OnnxNode &n, unsigned i) {
    return value(n, i, true);
  }
  static int64_t elems(const OnnxValueInfo *v) {
    return v ? std::max<int64_t>(v->numElements(), 0) : 0;
  }
  static DType dtypeOf(const OnnxValueInfo *v) {
    return v ? v->dtype : DType::F32;
  }

  static KernelDesc elementwise(int64_t numElements, int64_t numInputs,
                                double flopsPerElement, DType dtype) {
    KernelDesc d;
    d.kind = KernelKind::Elementwise;
    d.numElements = numElements;
    d.numInputs = numInputs;
    d.flopsPerElement = flopsPerElement;
    d.dtype = dtype;
    return d;
  }

  static KernelDesc moved(KernelKind kind, int64_t numElements, DType dtype) {
    KernelDesc d;
    d.kind = kind;
    d.numElements = numElements;
    d.dtype = dtype;
    return d;
  }

  /// Pads that reproduce the inferred output size with KernelDesc's
  /// symmetric formula: asymmetric or auto padding is folded into the input
  /// extent.
  static void setSpatial(int64_t in, int64_t outSize, int64_t kernel,
                         int64_t stride, int64_t dilation, int64_t padBegin,
                         int64_t padEnd, int64_t &descIn, int64_t &descPad) {
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

  bool convLike(const OnnxNode &n, KernelDesc &d, bool pooling) {
    const OnnxValueInfo *x = in(n, 0), *y = out(n, 0);
    if (!x || !y || !x->hasShape || !y->hasShape || x->shape.size() < 3 ||
        !x->isFullyKnown() || !y->isFullyKnown())
      return false;
    unsigned spatial = x->shape.size() - 2;
    if (spatial > 2)
      return false;
    std::vector<int64_t> kshape = n.getInts("kernel_shape");
    if (!pooling) {
      const OnnxValueInfo *w = in(n, 1);
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

  bool gemm(const OnnxNode &n, KernelDesc &d) {
    const OnnxValueInfo *a = in(n, 0), *b = in(n, 1), *y = out(n, 0);
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
    return true;
  }

  /// rows x cols split of `v` at `axis` (Softmax before opset 13 flattens).
  static void splitAt(const OnnxValueInfo *v, int64_t axis, bool onlyAxis,
                      int64_t &rows, int64_t &cols) {
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

  OnnxLoweredNode lower(const OnnxNode &n);
};

} // namespace

static const llvm::StringSet<> &metadataOps() {
  static const llvm::StringSet<> ops = {"Reshape",
                                        "Flatten",
                                        "Squeeze",
                                        "Unsqueeze",
                                        "Identity",
                                        "Shape",
                                        "Size",
                                        "Constant",
                                        "ConstantOfShape",
                                        "Dropout",
                                        "EyeLike",
                                        "Optional",
                                        "OptionalGetElement",
                                        "OptionalHasElement"};
  return ops;
}

/// FLOPs per output element of unary element-wise ops (transcendentals are
/// counted as a few operations, as roofline models do).
static double unaryFlops(llvm::StringRef op) {
  if (op == "Sigmoid" || op == "Tanh" || op == "Exp" || op == "Log" ||
      op == "Erf" || op == "Softplus" || op == "Elu" || op == "Selu" ||
      op == "Gelu" || op == "HardSwish" || op == "Mish" || op == "Sin" ||
      op == "Cos")
    return 4;
  if (op == "Cast" || op == "Not" || op == "IsNaN" || op == "IsInf")
    return 0;
  return 1;
}

static const llvm::StringSet<> &unaryOps() {
  static const llvm::StringSet<> ops = {"Relu",
                                        "Sigmoid",
                                        "Tanh",
                                        "Clip",
                                        "LeakyRelu",
                                        "Elu",
                                        "Selu",
                                        "Exp",
                                        "Log",
                                        "Sqrt",
                                        "Neg",
                                        "Abs",
                                        "Erf",
                                        "Reciprocal",
                                        "Floor",
                                        "Ceil",
                                        "Round",
                                        "Cast",
                                        "HardSigmoid",
                                        "HardSwish",
                                        "Softplus",
                                        "Softsign",
                                        "Sign",
                                        "Not",
                                        "Gelu",
                                        "Mish",
                                        "Sin",
                                        "Cos",
                                        "IsNaN",
                                        "IsInf",
                                        "ThresholdedRelu",
                                        "Celu",
                                        "Shrink",
                                        "CastLike",
                                        "BitShift"};
  return ops;
}

static const llvm::StringSet<> &naryOps() {
  static const llvm::StringSet<> ops = {"Add",
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
                                        "PRelu"};
  return ops;
}

static const llvm::StringSet<> &copyOps() {
  static const llvm::StringSet<> ops = {
      "Slice",        "Split",           "Pad",       "Tile",
      "Expand",       "Resize",          "Upsample",  "DepthToSpace",
      "SpaceToDepth", "GatherElements",  "ScatterND", "ScatterElements",
      "Trilu",        "ReverseSequence", "Range",     "OneHot",
      "GatherND",     "Compress"};
  return ops;
}

OnnxLoweredNode NodeLowerer::lower(const OnnxNode &n) {
  OnnxLoweredNode r;
  r.node = &n;
  llvm::StringRef op = n.opType;
  auto add = [&](llvm::StringRef role, KernelDesc d) {
    d.name = "";
    r.kernels.push_back({role.str(), std::move(d)});
  };
  if (!n.domain.empty() && n.domain != "ai.onnx") {
    r.supported = false;
    return r;
  }
  if (metadataOps().contains(op)) {
    r.metadataOnly = true;
    return r;
  }
  const OnnxValueInfo *y = out(n, 0);
  DType dt = dtypeOf(in(n, 0));

  if (op == "Conv") {
    KernelDesc d;
    d.kind = KernelKind::Conv2d;
    if (!convLike(n, d, /*pooling=*/false)) {
      // 3-D or unknown-shape convolutions: FLOPs from the output size.
      const OnnxValueInfo *w = in(n, 1);
      d = KernelDesc();
      d.kind = KernelKind::Generic;
      if (w && w->isFullyKnown() && y && y->isFullyKnown() &&
          w->shape.size() >= 2) {
        double perOut = 1;
        for (size_t i = 1; i < w->shape.size(); ++i)
          perOut *= w->shape[i];
        d.flops = 2.0 * elems(y) * perOut;
        d.bytes = dtypeBytes(dt) * (elems(in(n, 0)) + elems(w) + elems(y));
      }
    }
    add("conv", d);
    if (n.inputs.size() > 2 && !n.inputs[2].empty())
      add("bias", elementwise(elems(y), 2, 1, dt));
    return r;
  }
  if (op == "ConvTranspose") {
    // Priced as the data-gradient convolution it is.
    KernelDesc d;
    d.kind = KernelKind::Generic;
    const OnnxValueInfo *w = in(n, 1);
    if (w && w->isFullyKnown() && w->shape.size() >= 2) {
      double perIn = 1;
      for (size_t i = 1; i < w->shape.size(); ++i)
        perIn *= w->shape[i];
      d.flops = 2.0 * elems(in(n, 0)) * perIn;
      d.bytes = dtypeBytes(dt) * (elems(in(n, 0)) + elems(w) + elems(y));
    }
    add("conv_transpose", d);
    if (n.inputs.size() > 2 && !n.inputs[2].empty())
      add("bias", elementwise(elems(y), 2, 1, dt));
    return r;
  }
  if (op == "Gemm" || op == "MatMul") {
    KernelDesc d;
    if (!gemm(n, d)) {
      d = KernelDesc();
      d.kind = KernelKind::Gemm;
    }
    add("gemm", d);
    return r;
  }
  if (op == "BatchNormalization" || op == "InstanceNormalization") {
    KernelDesc d = moved(KernelKind::BatchNorm, elems(y), dt);
    // Inference: (x - mean) * scale / sqrt(var + eps) + bias.
    d.flopsPerElement = 2;
    const OnnxValueInfo *x = in(n, 0);
    d.c = x && x->hasShape && x->shape.size() > 1 ? x->shape[1] : 1;
    add("batchnorm", d);
    return r;
  }
  if (op == "LayerNormalization") {
    KernelDesc d;
    d.kind = KernelKind::LayerNorm;
    d.dtype = dt;
    splitAt(in(n, 0), n.getInt("axis", -1), false, d.rows, d.cols);
    add("layernorm", d);
    return r;
  }
  if (unaryOps().contains(op)) {
    add(op.lower(), elementwise(elems(y), 1, unaryFlops(op), dt));
    return r;
  }
  if (naryOps().contains(op)) {
    // A broadcast operand (a bias row, a mask, a scalar) is read from cache,
    // not once per output element: only operands of the output's size (or
    // of unknown size) count as streamed inputs.
    int64_t inputs = 0, streamed = 0;
    for (unsigned i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i].empty())
        continue;
      ++inputs;
      int64_t size = elems(in(n, i));
      streamed += size == 0 || size >= elems(y);
    }
    double flops = std::max<int64_t>(inputs - 1, 1);
    // Where(condition, x, y) moves the values, not the boolean condition.
    DType valueType = op == "Where" ? dtypeOf(in(n, 1)) : dt;
    add(op.lower(), elementwise(elems(y), std::max<int64_t>(streamed, 1),
                                flops, valueType));
    return r;
  }
  if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" ||
      op == "GlobalMaxPool" || op == "LpPool") {
    KernelDesc d;
    d.kind = KernelKind::Pooling;
    if (!convLike(n, d, /*pooling=*/true)) {
      d = KernelDesc();
      d.kind = KernelKind::Generic;
      d.bytes = dtypeBytes(dt) * (elems(in(n, 0)) + elems(y));
      d.flops = elems(in(n, 0));
    }
    add("pool", d);
    return r;
  }
  if (op == "Concat") {
    add("concat", moved(KernelKind::Concat, elems(y), dtypeOf(y)));
    return r;
  }
  if (op == "Transpose") {
    add("transpose", moved(KernelKind::Transpose, elems(y), dtypeOf(y)));
    return r;
  }
  if (copyOps().contains(op)) {
    // Data movement: one read and one write of each output element.
    int64_t total = 0;
    for (unsigned i = 0; i < n.outputs.size(); ++i)
      total += elems(out(n, i));
    add(op.lower(), moved(KernelKind::Transpose, total, dtypeOf(y)));
    return r;
  }
  if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") {
    KernelDesc d;
    d.kind = KernelKind::Softmax;
    d.dtype = dt;
    bool onlyAxis = opset >= 13;
    splitAt(in(n, 0), n.getInt("axis", onlyAxis ? -1 : 1), onlyAxis, d.rows,
            d.cols);
    add("softmax", d);
    return r;
  }
  if (op == "LRN") {
    // Sum of squares over `size` channels, then scale and power.
    int64_t size = n.getInt("size", 5);
    add("lrn", elementwise(elems(y), 1, 2.0 * size + 3, dt));
    return r;
  }
  if (op.starts_with("Reduce") || op == "ArgMax" || op == "ArgMin") {
    KernelDesc d;
    d.kind = KernelKind::Reduce;
    d.dtype = dt;
    int64_t inElems = elems(in(n, 0)),
            outElems = std::max<int64_t>(elems(y), 1);
    d.rows = outElems;
    d.cols = inElems / outElems;
    add("reduce", d);
    return r;
  }
  if (op == "Gather") {
    // Row gather (embedding lookup): each output element read once from the
    // table and written once, plus the indices.
    KernelDesc d;
    d.kind = KernelKind::Generic;
    d.dtype = dtypeOf(y);
    d.bytes = 2.0 * dtypeBytes(d.dtype) * elems(y) + 8.0 * elems(in(n, 1));
    add("gather", d);
    return r;
  }
  if (op == "Loop" || op == "Scan" || op == "If") {
    // A body runs once per iteration; its kernels are folded into this node
    // with FLOPs and bytes scaled by the trip count (If: the larger branch).
    int64_t trips = 1;
    if (op == "Loop") {
      const OnnxValueInfo *m = in(n, 0);
      if (m && m->intData && !m->intData->empty())
        trips = std::max<int64_t>((*m->intData)[0], 0);
    } else if (op == "Scan") {
      const OnnxValueInfo *x = in(n, n.inputs.size() - 1);
      if (x && x->isFullyKnown() && !x->shape.empty())
        trips = x->shape[0];
    }
    double bestFlops = -1;
    std::vector<OnnxKernel> best;
    for (const auto &[attrName, body] : n.subgraphs) {
      NodeLowerer inner{*body, opset};
      std::vector<OnnxKernel> kernels;
      double flops = 0;
      for (const OnnxNode &bn : body->nodes) {
        OnnxLoweredNode ln = inner.lower(bn);
        if (!ln.supported)
          r.supported = false;
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
      r.kernels.push_back(std::move(k));
    }
    return r;
  }
  r.supported = false;
  return r;
}

/// Names of values that carry weights: operands of compute ops that hold
/// parameters, followed back through metadata ops to their source.
static void collectParameters(const OnnxModel &model, OnnxLowering &lowering) {
  const OnnxGraph &g = model.graph;
  llvm::StringSet<> weightLike;
  auto markFrom = [&](const OnnxNode &n, unsigned first, unsigned last) {
    for (unsigned i = first; i < std::min<size_t>(last, n.inputs.size()); ++i)
      if (!n.inputs[i].empty())
        weightLike.insert(n.inputs[i]);
  };
  for (const OnnxNode &n : g.nodes) {
    llvm::StringRef op = n.opType;
    if (op == "Conv" || op == "ConvTranspose" || op == "Gemm" ||
        op == "PRelu" || op == "LayerNormalization" ||
        op == "InstanceNormalization")
      markFrom(n, 1, 3);
    else if (op == "BatchNormalization")
      markFrom(n, 1, 3); // scale and bias; mean and var are statistics
    else if (op == "MatMul")
      markFrom(n, 1, 2);
    else if (op == "Gather")
      markFrom(n, 0, 1);
    else if (op == "Add" || op == "Mul" || op == "Sub" || op == "Sum")
      markFrom(n, 0, n.inputs.size());
  }
  // Back through metadata ops (Unsqueeze of a BN scale, Identity of a
  // weight): the source is the parameter.
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    if (!metadataOps().contains(it->opType) || it->outputs.empty() ||
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
    lowering.numParameters += p.second;
}

OnnxLowering perf::lowerOnnxModel(const OnnxModel &model) {
  int64_t opset = 0;
  for (const auto &[domain, version] : model.opsets)
    if (domain.empty())
      opset = version;
  NodeLowerer lowerer{model.graph, opset};
  OnnxLowering result;
  result.nodes.reserve(model.graph.nodes.size());
  for (const OnnxNode &n : model.graph.nodes) {
    OnnxLoweredNode lowered = lowerer.lower(n);
    if (!lowered.supported)
      ++result.unsupported[n.domain.empty() ? n.opType
                                            : n.domain + "::" + n.opType];
    result.nodes.push_back(std::move(lowered));
  }
  collectParameters(model, result);
  return result;
}
