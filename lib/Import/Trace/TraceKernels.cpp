//===- TraceKernels.cpp - Kernels of a traced framework op ----------------===//

#include "perf/Import/TraceKernels.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include <algorithm>
#include <tuple>

using namespace perf;
using namespace perf::trace;
using llvm::StringRef;

int64_t TracedTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= std::max<int64_t>(d, 0);
  return n;
}

std::vector<int64_t> perf::contiguousStrides(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t step = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    step *= std::max<int64_t>(shape[i], 1);
  }
  return strides;
}

/// The strides of `t`: its own, or those of a contiguous tensor of its
/// shape where none are known.
static std::vector<int64_t> stridesOf(const TracedTensor &t) {
  if (t.strides.size() == t.shape.size())
    return t.strides;
  return contiguousStrides(t.shape);
}

bool TracedTensor::isContiguous() const {
  if (strides.size() != shape.size())
    return true;
  std::vector<int64_t> expected = contiguousStrides(shape);
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1 && strides[i] != expected[i])
      return false;
  return true;
}

DType perf::dtypeFromTraceName(StringRef name) {
  name = name.trim();
  if (name.consume_front("Tensor("))
    name.consume_back(")");
  name.consume_front("c10::");
  return llvm::StringSwitch<DType>(name)
      .Cases({"float", "Float"}, DType::F32)
      .Cases({"double", "Double"}, DType::F64)
      .Cases({"Half", "half"}, DType::F16)
      .Cases({"BFloat16", "bfloat16"}, DType::BF16)
      .Cases({"long int", "long", "Long", "int64_t"}, DType::I64)
      .Cases({"int", "Int"}, DType::I32)
      .Cases({"signed char", "unsigned char", "Char", "Byte"}, DType::I8)
      .Cases({"bool", "Bool"}, DType::Bool)
      .Default(DType::F32);
}

StringRef perf::measuredClassOf(const DeviceWork &work) {
  const KernelDesc *k = std::get_if<KernelDesc>(&work);
  if (!k)
    return "nccl";
  switch (k->kind) {
  case KernelKind::Gemm:
    return "gemm";
  case KernelKind::EmbeddingBag:
    return "embedding";
  case KernelKind::Reduce:
    return "reduce";
  case KernelKind::Softmax:
    return "softmax";
  case KernelKind::LayerNorm:
  case KernelKind::BatchNorm:
    return "norm";
  case KernelKind::Conv2d:
    return "conv";
  case KernelKind::Memcpy:
    return "memcpy";
  case KernelKind::Attention:
    return "attention";
  default:
    return "elementwise";
  }
}

bool perf::measuredMatches(StringRef measured, const DeviceWork &work) {
  StringRef expected = measuredClassOf(work);
  if (measured == expected)
    return true;
  // Concatenation, optimizer and loss kernels carry library-specific names
  // ("CatArrayBatchedCopy", "multi_tensor_apply_kernel"): any kernel the
  // classifier cannot place may be them.
  if (measured == "other" && expected == "elementwise")
    return true;
  // An embedding lookup runs PyTorch's gather kernels (indexSelect...),
  // which read like any element-wise one.
  return (measured == "elementwise" && expected == "embedding") ||
         (measured == "embedding" && expected == "elementwise");
}

namespace {
int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

StringRef baseName(StringRef name) {
  name.consume_front("aten::");
  return name;
}

bool isOnDevice(const TracedTensor &t) {
  return StringRef(t.device).starts_with("cuda") ||
         StringRef(t.device).starts_with("hip");
}

/// h2d, d2h or d2d from the devices of a copy; none when both are on the
/// host (no device work).
std::optional<MemcpyKind> copyKind(const TracedTensor &src,
                                   const TracedTensor &dst) {
  bool srcDev = isOnDevice(src), dstDev = isOnDevice(dst);
  if (!src.device.empty() && !dst.device.empty() && !srcDev && !dstDev)
    return std::nullopt;
  if (!srcDev && !src.device.empty() && dstDev)
    return MemcpyKind::HostToDevice;
  if (srcDev && !dstDev && !dst.device.empty())
    return MemcpyKind::DeviceToHost;
  return MemcpyKind::DeviceToDevice;
}

int64_t itemBytes(const TracedTensor &t) {
  return dtypeBytes(dtypeFromTraceName(t.dtype));
}

/// The shape without its leading 1s: how broadcasting aligns it.
llvm::ArrayRef<int64_t> alignedShape(llvm::ArrayRef<int64_t> shape) {
  while (!shape.empty() && shape.front() == 1)
    shape = shape.drop_front();
  return shape;
}

/// Whether `a` and `b`, of one shape, lay their elements out alike
/// (dimensions of size 1 aside).
bool sameLayout(const TracedTensor &a, const TracedTensor &b) {
  if (a.isContiguous() && b.isContiguous())
    return true;
  std::vector<int64_t> sa = stridesOf(a), sb = stridesOf(b);
  for (size_t i = 0; i < a.shape.size(); ++i)
    if (a.shape[i] != 1 && sa[i] != sb[i])
      return false;
  return true;
}

bool isFloatType(DType type) {
  switch (type) {
  case DType::F64:
  case DType::F32:
  case DType::TF32:
  case DType::F16:
  case DType::BF16:
  case DType::F8:
    return true;
  default:
    return false;
  }
}

/// Whether PyTorch's TensorIterator runs an element-wise op writing `out`
/// on its non-vectorized path: an input (other than a scalar) broadcast to
/// the output's shape, laid out otherwise than the output (a transposed or
/// sliced view), or of another floating-point type than the output (a
/// cast in the loop).
bool hasStridedOperand(llvm::ArrayRef<TracedTensor> inputs,
                       const TracedTensor &out) {
  DType outType = dtypeFromTraceName(out.dtype);
  for (const TracedTensor &in : inputs) {
    // Scalars are arguments of the loop; an input larger than the output
    // is reduced, not mapped.
    if (in.numel() <= 1 || in.numel() > out.numel())
      continue;
    if (in.numel() < out.numel())
      return true;
    DType inType = dtypeFromTraceName(in.dtype);
    if (inType != outType && isFloatType(inType) && isFloatType(outType))
      return true;
    if (alignedShape(in.shape) == alignedShape(out.shape)
            ? !sameLayout(in, out)
            : !in.isContiguous() || !out.isContiguous())
      return true;
  }
  return false;
}

/// The first integer scalar, or `fallback`.
int64_t firstIntegerScalar(const TracedOp &op, int64_t fallback) {
  for (const llvm::json::Value &v : op.scalars)
    if (std::optional<int64_t> i = v.getAsInteger())
      return *i;
  return fallback;
}

/// The integer-list scalar arguments ([2, 2], [1]), in order.
std::vector<std::vector<int64_t>> intLists(const TracedOp &op) {
  std::vector<std::vector<int64_t>> lists;
  for (const llvm::json::Value &v : op.scalars)
    if (const llvm::json::Array *a = v.getAsArray()) {
      std::vector<int64_t> list;
      for (const llvm::json::Value &e : *a)
        if (std::optional<int64_t> i = e.getAsInteger())
          list.push_back(*i);
      if (list.size() == a->size() && !list.empty())
        lists.push_back(std::move(list));
    }
  return lists;
}

/// (h, w) of a one- or two-element list; `fallback` when absent.
std::pair<int64_t, int64_t> hw(const std::vector<std::vector<int64_t>> &lists,
                               size_t i, int64_t fallback) {
  if (i >= lists.size())
    return {fallback, fallback};
  const std::vector<int64_t> &l = lists[i];
  return {l[0], l.size() > 1 ? l[1] : l[0]};
}

/// Collective name, as record_param_comms and c10d ops spell it, to kind.
std::optional<CollectiveKind> collectiveKind(StringRef name) {
  std::string lower = name.lower();
  StringRef n(lower);
  if (n.contains("all_reduce") || n.contains("allreduce"))
    return CollectiveKind::AllReduce;
  if (n.contains("all_to_all") || n.contains("alltoall"))
    return CollectiveKind::AllToAll;
  if (n.contains("all_gather") || n.contains("allgather"))
    return CollectiveKind::AllGather;
  if (n.contains("reduce_scatter") || n.contains("reducescatter"))
    return CollectiveKind::ReduceScatter;
  return std::nullopt;
}

/// How many tensor-list arguments a foreach / fused optimizer op takes.
unsigned tensorListCount(const TracedOp &op) {
  unsigned lists = 0;
  for (const std::string &t : op.inputTypes)
    lists += StringRef(t).starts_with("GenericList[Tensor");
  return std::max(1u, lists);
}

int64_t totalElements(llvm::ArrayRef<TracedTensor> tensors) {
  int64_t total = 0;
  for (const TracedTensor &t : tensors)
    total += t.numel();
  return total;
}

/// What a rule sees: the op, its base name, the world size, and where its
/// work goes.
struct RuleContext {
  const TracedOp &op;
  StringRef name;
  int64_t worldSize;
  std::vector<DeviceWork> &out;

  llvm::ArrayRef<int64_t> shape(size_t i) const {
    return i < op.inputs.size() ? llvm::ArrayRef<int64_t>(op.inputs[i].shape)
                                : llvm::ArrayRef<int64_t>();
  }
  DType dtype(size_t i) const {
    return i < op.inputs.size() ? dtypeFromTraceName(op.inputs[i].dtype)
                                : DType::F32;
  }
  KernelDesc kernel(KernelKind kind, DType type) const {
    KernelDesc d;
    d.kind = kind;
    d.dtype = type;
    return d;
  }
  void gemm(int64_t batch, int64_t m, int64_t n, int64_t k, DType type,
            bool transB = false) {
    KernelDesc g = kernel(KernelKind::Gemm, type);
    g.batch = batch;
    g.m = m;
    g.n = n;
    g.k = k;
    g.transB = transB;
    out.push_back(g);
  }
  /// An element-wise kernel over the largest output (or input).
  KernelDesc elementwise(int64_t inputs, double flops = 1.0) const {
    KernelDesc k = kernel(KernelKind::Elementwise, DType::F32);
    k.op = name.str();
    k.numInputs = inputs;
    k.flopsPerElement = flops;
    for (const TracedTensor &t : op.outputs)
      k.numElements = std::max(k.numElements, t.numel());
    if (k.numElements == 0)
      for (const TracedTensor &t : op.inputs)
        k.numElements = std::max(k.numElements, t.numel());
    const TracedTensor *typed = !op.outputs.empty()  ? &op.outputs.front()
                                : !op.inputs.empty() ? &op.inputs.front()
                                                     : nullptr;
    if (typed)
      k.dtype = dtypeFromTraceName(typed->dtype);
    if (!op.outputs.empty())
      k.strided = hasStridedOperand(op.inputs, op.outputs.front());
    return k;
  }
};

using Rule = void (*)(RuleContext &);

//===----------------------------------------------------------------------===//
// Rules, one per family of ATen ops
//===----------------------------------------------------------------------===//

void noWork(RuleContext &) {}

void addmmRule(RuleContext &c) {
  size_t a = c.name == "addmm" ? 1 : 0;
  auto sa = c.shape(a), sb = c.shape(a + 1);
  if (sa.size() == 2 && sb.size() == 2)
    c.gemm(1, sa[0], sb[1], sa[1], c.dtype(a));
}

void bmmRule(RuleContext &c) {
  size_t a = c.name == "baddbmm" ? 1 : 0;
  auto sa = c.shape(a), sb = c.shape(a + 1);
  if (sa.size() == 3 && sb.size() == 3)
    c.gemm(sa[0], sa[1], sb[2], sa[2], c.dtype(a));
}

void linearRule(RuleContext &c) {
  auto x = c.shape(0), w = c.shape(1);
  if (x.size() >= 1 && w.size() == 2)
    c.gemm(1, product(x.drop_back()), w[0], x.back(), c.dtype(0),
           /*transB=*/true);
}

void matmulRule(RuleContext &c) {
  auto a = c.shape(0), b = c.shape(1);
  if (a.size() >= 2 && b.size() == 2)
    c.gemm(1, product(a.drop_back()), b[1], a.back(), c.dtype(0));
  else if (a.size() >= 3 && b.size() >= 3)
    c.gemm(product(a.drop_back(2)), a[a.size() - 2], b.back(), a.back(),
           c.dtype(0));
  else if (a.size() == 2 && b.size() == 1)
    c.gemm(1, a[0], 1, a[1], c.dtype(0));
  else if (a.size() == 1 && b.size() == 2)
    c.gemm(1, 1, b[1], a[0], c.dtype(0));
}

/// Embedding lookups: weight [rows, dim], indices [L], offsets [bags].
void embeddingRule(RuleContext &c) {
  auto w = c.shape(0);
  if (w.size() != 2)
    return;
  KernelDesc e = c.kernel(KernelKind::EmbeddingBag, c.dtype(0));
  e.tableRows = w[0];
  e.dim = w[1];
  const auto &in = c.op.inputs;
  int64_t lookups = in.size() > 1 ? in[1].numel() : 0;
  if (c.name == "embedding") {
    e.batch = lookups;
    e.pooling = 1;
  } else {
    e.batch = in.size() > 2 ? std::max<int64_t>(in[2].numel(), 1) : 1;
    e.pooling = std::max<int64_t>(1, lookups / e.batch);
  }
  c.out.push_back(e);
}

/// (grad [bags, dim], indices [L], offsets [bags], ..., num_weights)
void embeddingBackwardRule(RuleContext &c) {
  auto g = c.shape(0);
  if (g.size() != 2)
    return;
  KernelDesc e = c.kernel(KernelKind::EmbeddingBag, c.dtype(0));
  e.pass = KernelPass::BackwardData;
  e.dim = g[1];
  e.batch = g[0];
  int64_t lookups = c.op.inputs.size() > 1 ? c.op.inputs[1].numel() : 0;
  e.pooling = std::max<int64_t>(1, lookups / std::max<int64_t>(e.batch, 1));
  e.tableRows = std::max<int64_t>(1, firstIntegerScalar(c.op, 1));
  c.out.push_back(e);
}

/// Convolutions: input [N, C, H, W], weight [K, C / groups, R, S]. The
/// stride/padding/dilation lists come in schema order.
void convRule(RuleContext &c) {
  StringRef n = c.name;
  bool backward = n.ends_with("_backward");
  // Backward ops take (grad_output, input, weight) or (input, grad, weight).
  size_t inputIdx = 0, weightIdx = 1;
  if (n == "convolution_backward") {
    inputIdx = 1;
    weightIdx = 2;
  } else if (backward) {
    weightIdx = 2;
  }
  auto x = c.shape(inputIdx), wt = c.shape(weightIdx);
  if (x.size() != 4 || wt.size() != 4)
    return;
  std::vector<std::vector<int64_t>> lists = intLists(c.op);
  // convolution_backward lists bias sizes first; cudnn_* put padding
  // before stride.
  size_t first = n == "convolution_backward" ? 1 : 0;
  // Without the argument lists (profiler Input Dims) stride and padding
  // are unknown: leave the kernel to the measurement.
  if (lists.size() < first + 2)
    return;
  bool padFirst = n.starts_with("cudnn_") || n.starts_with("miopen_");
  KernelDesc k = c.kernel(KernelKind::Conv2d, c.dtype(inputIdx));
  k.batch = x[0];
  k.c = x[1];
  k.h = x[2];
  k.w = x[3];
  k.outChannels = wt[0];
  k.r = wt[2];
  k.s = wt[3];
  std::tie(k.strideH, k.strideW) = hw(lists, first + (padFirst ? 1 : 0), 1);
  std::tie(k.padH, k.padW) = hw(lists, first + (padFirst ? 0 : 1), 0);
  std::tie(k.dilationH, k.dilationW) = hw(lists, first + 2, 1);
  k.groups = std::max<int64_t>(1, x[1] / std::max<int64_t>(wt[1], 1));
  if (!backward) {
    c.out.push_back(k);
    return;
  }
  k.pass = KernelPass::BackwardData;
  c.out.push_back(k);
  k.pass = KernelPass::BackwardWeight;
  c.out.push_back(k);
}

void poolingRule(RuleContext &c) {
  StringRef n = c.name;
  bool backward = n.ends_with("_backward");
  // Backward ops take (grad_output, input, ...): the window runs over the
  // input.
  size_t inputIdx = backward && c.op.inputs.size() > 1 ? 1 : 0;
  auto x = c.shape(inputIdx);
  if (x.size() != 4)
    return;
  KernelDesc k = c.kernel(KernelKind::Pooling, c.dtype(inputIdx));
  k.batch = x[0];
  k.c = x[1];
  k.h = x[2];
  k.w = x[3];
  std::vector<std::vector<int64_t>> lists = intLists(c.op);
  if (n.contains("adaptive")) {
    auto out = hw(lists, 0, 1);
    if (backward && c.shape(0).size() == 4)
      out = {c.shape(0)[2], c.shape(0)[3]};
    k.r = k.strideH =
        std::max<int64_t>(1, x[2] / std::max<int64_t>(out.first, 1));
    k.s = k.strideW =
        std::max<int64_t>(1, x[3] / std::max<int64_t>(out.second, 1));
  } else {
    if (lists.empty())
      return;
    std::tie(k.r, k.s) = hw(lists, 0, 1);
    std::tie(k.strideH, k.strideW) = hw(lists, 1, k.r);
    std::tie(k.padH, k.padW) = hw(lists, 2, 0);
  }
  if (backward)
    k.pass = KernelPass::BackwardData;
  c.out.push_back(k);
}

void batchNormRule(RuleContext &c) {
  auto x = c.shape(0);
  if (x.size() < 2)
    return;
  KernelDesc k = c.kernel(KernelKind::BatchNorm, c.dtype(0));
  k.numElements = product(x);
  k.c = x[1];
  if (c.name.contains("backward"))
    k.pass = KernelPass::BackwardData;
  c.out.push_back(k);
}

void concatRule(RuleContext &c) {
  KernelDesc k = c.kernel(KernelKind::Concat, c.dtype(0));
  k.numElements = totalElements(c.op.outputs);
  if (k.numElements == 0)
    k.numElements = totalElements(c.op.inputs);
  // Views (a transposed key, a slice) are gathered an element at a time.
  k.strided = llvm::any_of(c.op.inputs, [](const TracedTensor &t) {
    return t.numel() > 0 && !t.isContiguous();
  });
  c.out.push_back(k);
}

/// Copies: to/_to_copy (src -> output), copy_ (dst <- src).
void copyRule(RuleContext &c) {
  const auto &in = c.op.inputs;
  const TracedTensor *src = nullptr, *dst = nullptr;
  if (c.name == "copy_" && in.size() >= 2) {
    src = &in[1];
    dst = &in[0];
  } else if (!in.empty() && !c.op.outputs.empty()) {
    src = &in[0];
    dst = &c.op.outputs[0];
    // to()/contiguous() that return their input launch nothing.
    if (src->tensorId >= 0 && src->tensorId == dst->tensorId)
      return;
  }
  if (!src)
    return;
  std::optional<MemcpyKind> kind = copyKind(*src, *dst);
  if (!kind)
    return;
  DType from = dtypeFromTraceName(src->dtype),
        to = dtypeFromTraceName(dst->dtype);
  if (*kind == MemcpyKind::DeviceToDevice && src->numel() > 0) {
    // contiguous() copies only a view that is not; a clone or reshape
    // of a view is the same gather: a layout change.
    bool view = !src->isContiguous() || c.name == "contiguous";
    if (from != to) {
      // A cast is an element-wise loop; PyTorch vectorizes only float to
      // half and bfloat16 (its own copy kernels) between contiguous
      // tensors, moving both sizes once.
      bool vectorized = from == DType::F32 &&
                        (to == DType::F16 || to == DType::BF16) && !view &&
                        dst->isContiguous();
      if (vectorized) {
        KernelDesc k = c.kernel(KernelKind::Memcpy, from);
        k.bytes =
            0.5 * src->numel() * double(itemBytes(*src) + itemBytes(*dst));
        c.out.push_back(k);
        return;
      }
      KernelDesc k = c.kernel(KernelKind::Elementwise, to);
      k.op = "copy";
      k.numElements = src->numel();
      k.strided = true;
      c.out.push_back(k);
      return;
    }
    if (view) {
      KernelDesc k = c.kernel(KernelKind::Transpose, from);
      k.numElements = src->numel();
      c.out.push_back(k);
      return;
    }
  }
  KernelDesc k = c.kernel(KernelKind::Memcpy, from);
  k.copyKind = *kind;
  k.bytes = static_cast<double>(src->numel() * itemBytes(*src));
  if (k.bytes > 0)
    c.out.push_back(k);
}

void mseLossRule(RuleContext &c) {
  KernelDesc e = c.elementwise(2, 3.0);
  e.numElements = c.op.inputs.empty() ? 0 : c.op.inputs[0].numel();
  c.out.push_back(e);
  KernelDesc r = c.kernel(KernelKind::Reduce, c.dtype(0));
  r.rows = 1;
  r.cols = e.numElements;
  c.out.push_back(r);
}

void mseLossBackwardRule(RuleContext &c) {
  KernelDesc k = c.elementwise(3, 3.0);
  if (c.op.inputs.size() > 1)
    k.numElements = c.op.inputs[1].numel();
  c.out.push_back(k);
}

void reduceRule(RuleContext &c) {
  KernelDesc r = c.kernel(KernelKind::Reduce, c.dtype(0));
  int64_t total = c.op.inputs.empty() ? 0 : c.op.inputs[0].numel();
  int64_t out = 1;
  if (!c.op.outputs.empty())
    out = std::max<int64_t>(1, c.op.outputs[0].numel());
  r.rows = out;
  r.cols = total / out;
  c.out.push_back(r);
}

/// topk selects k of each row of its input's last dimension: one pass over
/// the rows (a reduction over that dimension), whatever k is.
void topkRule(RuleContext &c) {
  auto s = c.shape(0);
  if (s.empty())
    return;
  KernelDesc r = c.kernel(KernelKind::Reduce, c.dtype(0));
  r.rows = product(s.drop_back());
  r.cols = s.back();
  c.out.push_back(r);
}

/// nll_loss gathers one log-probability per target (and averages them):
/// it reads as many values as there are targets, not the whole input.
void nllLossRule(RuleContext &c) {
  KernelDesc r = c.kernel(KernelKind::Reduce, c.dtype(0));
  r.rows = 1;
  r.cols =
      c.op.inputs.size() > 1 ? std::max<int64_t>(1, c.op.inputs[1].numel()) : 1;
  c.out.push_back(r);
}

/// Softmax and layer norm over the last dimension.
void lastDimRule(RuleContext &c) {
  auto s = c.shape(0);
  if (s.empty())
    return;
  KernelDesc k = c.kernel(c.name.contains("norm") ? KernelKind::LayerNorm
                                                  : KernelKind::Softmax,
                          c.dtype(0));
  k.cols = s.back();
  k.rows = product(s.drop_back());
  if (c.name.contains("backward"))
    k.pass = KernelPass::BackwardData;
  c.out.push_back(k);
}

void fusedOptimizerRule(RuleContext &c) {
  KernelDesc k = c.kernel(KernelKind::Optimizer, DType::F32);
  k.op = c.name.starts_with("_fused_adam") ? "adam" : "sgd";
  k.pass = KernelPass::Update;
  k.numElements = totalElements(c.op.inputs) / tensorListCount(c.op);
  c.out.push_back(k);
}

void foreachRule(RuleContext &c) {
  unsigned lists = tensorListCount(c.op);
  KernelDesc k = c.kernel(KernelKind::Elementwise, DType::F32);
  k.op = c.name.str();
  k.pass = KernelPass::Update;
  k.numInputs = lists;
  k.numElements = totalElements(c.op.inputs) / lists;
  c.out.push_back(k);
}

/// record_param_comms(tensors..., seq, pg, rank, name, in_splits,
/// out_splits) and the newer layouts with more scalars.
void collectiveRule(RuleContext &c) {
  std::optional<CollectiveKind> kind;
  int64_t group = 0;
  for (const llvm::json::Value &v : c.op.scalars) {
    if (std::optional<StringRef> s = v.getAsString())
      if (!kind)
        kind = collectiveKind(*s);
    if (const llvm::json::Array *splits = v.getAsArray())
      group = std::max<int64_t>(group, splits->size());
  }
  if (!kind)
    return; // wait, barrier, broadcast of nothing
  CollectiveDesc d;
  d.kind = *kind;
  for (const TracedTensor &t : c.op.inputs)
    d.bytes += t.numel() * itemBytes(t);
  d.groupSize = group > 0 ? group : std::max<int64_t>(c.worldSize, 1);
  if (!c.op.inputs.empty())
    d.dtype = c.dtype(0);
  if (d.bytes > 0)
    c.out.push_back(d);
}

/// Binary (and ternary: where, addcmul, lerp) element-wise ops read up to
/// three tensors. A broadcast operand (a bias row, a [1, 1, S, S] mask, a
/// one-element scalar tensor) is read from cache, not once per output, so
/// only operands of the output's size count.
void binaryRule(RuleContext &c) {
  KernelDesc k = c.elementwise(1);
  int64_t tensors = 0;
  for (const TracedTensor &t : c.op.inputs)
    tensors += t.numel() >= k.numElements;
  k.numInputs = std::clamp<int64_t>(tensors, 1, 3);
  c.out.push_back(k);
}

/// Where a fused attention op's schema has is_causal, and which kernel it
/// runs (kAttentionImpls; empty: the one the dispatcher picks).
struct AttentionOpSchema {
  size_t causalArgument;
  StringRef impl;
};
std::optional<AttentionOpSchema> attentionSchema(StringRef name) {
  return llvm::StringSwitch<std::optional<AttentionOpSchema>>(name)
      .Case("scaled_dot_product_attention", AttentionOpSchema{5, ""})
      .Case("_scaled_dot_product_flash_attention",
            AttentionOpSchema{4, "flash2"})
      .Case("_scaled_dot_product_efficient_attention",
            AttentionOpSchema{6, "efficient"})
      .Case("_scaled_dot_product_cudnn_attention",
            AttentionOpSchema{6, "cudnn"})
      .Case("_scaled_dot_product_flash_attention_backward",
            AttentionOpSchema{11, "flash2"})
      .Case("_scaled_dot_product_efficient_attention_backward",
            AttentionOpSchema{11, "efficient"})
      .Case("_scaled_dot_product_cudnn_attention_backward",
            AttentionOpSchema{14, "cudnn"})
      .Default(std::nullopt);
}

/// Fused scaled-dot-product attention over q [B, heads, S, d], k and v
/// [B, kv heads, keys, d]: the scalar is_causal, and the key heads when
/// fewer than the query heads (enable_gqa).
void attentionRule(RuleContext &c) {
  bool backward = c.name.ends_with("_backward");
  // The backward ops take the output gradient first, of q's shape.
  size_t first = backward ? 1 : 0;
  auto q = c.shape(first);
  if (q.size() != 4)
    return;
  KernelDesc k = c.kernel(KernelKind::Attention, c.dtype(first));
  k.batch = q[0];
  k.heads = q[1];
  k.m = q[2];
  k.k = q[3];
  auto keys = c.shape(first + 1);
  if (keys.size() == 4) {
    if (keys[2] != q[2])
      k.n = keys[2];
    if (keys[1] > 0 && keys[1] != q[1] && q[1] % keys[1] == 0)
      k.kvHeads = keys[1];
  }
  if (std::optional<AttentionOpSchema> schema = attentionSchema(c.name)) {
    k.op = schema->impl.str();
    if (schema->causalArgument < c.op.scalars.size())
      if (std::optional<bool> causal =
              c.op.scalars[schema->causalArgument].getAsBoolean())
        k.causal = *causal && k.m <= k.keyLength();
  }
  if (backward)
    k.pass = KernelPass::BackwardData;
  c.out.push_back(k);
}

/// vLLM's rotary embedding (_C::rotary_embedding): positions [T], query
/// [T, heads * d], key [T, kv heads * d], the head size, the cos/sin cache
/// [positions, rotated dims]; rotates the query and key heads in place.
void rotaryRule(RuleContext &c) {
  if (c.op.inputs.size() < 4)
    return;
  int64_t tokens = c.op.inputs[0].numel();
  int64_t headDim = firstIntegerScalar(c.op, 0);
  auto cache = c.shape(3);
  if (tokens <= 0 || headDim <= 0 || cache.size() != 2)
    return;
  KernelDesc k = c.kernel(KernelKind::Rope, c.dtype(1));
  k.rows = tokens;
  k.heads = c.op.inputs[1].numel() / (tokens * headDim);
  int64_t kvHeads = c.op.inputs[2].numel() / (tokens * headDim);
  k.kvHeads = kvHeads != k.heads ? kvHeads : 0;
  k.k = headDim;
  k.cols = cache[1] != headDim ? cache[1] : 0;
  c.out.push_back(k);
}

/// vLLM's KV-cache write (_C_cache_ops::reshape_and_cache[_flash]): key and
/// value [T, kv heads, d] into the caches, [blocks, block size, kv heads,
/// d] (flash layout) or [blocks, kv heads, d, block size] (values of the
/// older layout).
void cacheWriteRule(RuleContext &c) {
  auto key = c.shape(0), valueCache = c.shape(3);
  if (key.size() != 3 || valueCache.size() != 4)
    return;
  KernelDesc k = c.kernel(KernelKind::KvCacheWrite, c.dtype(0));
  k.rows = key[0];
  k.kvHeads = key[1];
  k.k = key[2];
  k.pageSize = c.name.ends_with("_flash") ? valueCache[1] : valueCache[3];
  c.out.push_back(k);
}

/// vLLM's fused kernels that read and write whole rows once: RMSNorm
/// (_C::rms_norm(out, input, weight, eps): the input read, the output
/// written), with the residual add (_C::fused_add_rms_norm(input,
/// residual, weight, eps): both read and written in place), and the gated
/// activation (_C::silu_and_mul(out [T, F], input [T, 2F])).
void servingRowRule(RuleContext &c) {
  if (c.op.inputs.size() < 2)
    return;
  KernelDesc k;
  if (c.name.ends_with("fused_add_rms_norm")) {
    k = elementwiseKernel(c.op.inputs[0].numel(), 3, 8, c.dtype(0));
    k.op = "fused_add_rms_norm";
  } else if (c.name.ends_with("rms_norm")) {
    k = elementwiseKernel(c.op.inputs[1].numel(), 1, 5, c.dtype(1));
    k.op = "rms_norm";
  } else {
    k = elementwiseKernel(c.op.inputs[0].numel(), 2, 10, c.dtype(0));
    k.op = "silu_and_mul";
  }
  c.out.push_back(k);
}

/// A scatter (index_put, scatter_add) writes as many elements as its source
/// (the last input), not the whole destination.
void scatterRule(RuleContext &c) {
  if (c.op.inputs.empty())
    return;
  KernelDesc k = c.elementwise(1);
  k.numElements = c.op.inputs.back().numel();
  if (k.numElements > 0)
    c.out.push_back(k);
}

/// nonzero scans its whole input (its output size is data-dependent; the
/// host waits for it, a sync the caller states).
void nonzeroRule(RuleContext &c) {
  if (c.op.inputs.empty())
    return;
  KernelDesc k = c.elementwise(1);
  k.numElements = c.op.inputs[0].numel();
  c.out.push_back(k);
}

/// one_hot on a GPU: a zero fill of the output, then a scatter of ones.
void oneHotRule(RuleContext &c) {
  KernelDesc fill = c.elementwise(0);
  fill.op = "zero";
  c.out.push_back(fill);
  if (c.op.inputs.empty())
    return;
  KernelDesc scatter = c.elementwise(1);
  scatter.op = "scatter";
  scatter.numElements = c.op.inputs[0].numel();
  c.out.push_back(scatter);
}

void unaryRule(RuleContext &c) {
  c.out.push_back(c.elementwise(std::min<size_t>(c.op.inputs.size(), 1)));
}

/// The ATen op table. Names are without "aten::"; an in-place variant
/// ("relu_") falls back to its out-of-place rule. The first entry for a name
/// wins, so the groups are listed in priority order.
class AtenRuleTable {
public:
  AtenRuleTable() {
    on({"addmm", "mm"}, addmmRule);
    on({"bmm", "baddbmm"}, bmmRule);
    on({"linear"}, linearRule);
    on({"matmul"}, matmulRule);
    on({"embedding_bag", "_embedding_bag", "embedding"}, embeddingRule);
    on({"_embedding_bag_backward", "embedding_bag_backward",
        "_embedding_bag_dense_backward", "_embedding_bag_sparse_backward",
        "embedding_backward", "embedding_dense_backward"},
       embeddingBackwardRule);
    on({"conv2d", "convolution", "_convolution", "cudnn_convolution",
        "mkldnn_convolution", "miopen_convolution", "convolution_backward",
        "cudnn_convolution_backward", "mkldnn_convolution_backward"},
       convRule);
    on({"max_pool2d", "max_pool2d_with_indices", "avg_pool2d",
        "max_pool2d_with_indices_backward", "avg_pool2d_backward",
        "adaptive_avg_pool2d", "_adaptive_avg_pool2d",
        "_adaptive_avg_pool2d_backward"},
       poolingRule);
    on({"native_batch_norm", "cudnn_batch_norm", "batch_norm",
        "_batch_norm_impl_index", "native_batch_norm_backward",
        "cudnn_batch_norm_backward", "miopen_batch_norm"},
       batchNormRule);
    on({"cat", "concat", "_cat", "stack"}, concatRule);
    on({"copy_", "_to_copy", "to", "clone", "contiguous"}, copyRule);
    on({"mse_loss"}, mseLossRule);
    on({"mse_loss_backward"}, mseLossBackwardRule);
    on({"sum", "mean", "norm", "amax", "max", "min", "argmax", "argmin",
        "count_nonzero", "any", "all", "logsumexp"},
       reduceRule);
    on({"topk"}, topkRule);
    on({"nll_loss_forward", "nll_loss", "nll_loss2d_forward"}, nllLossRule);
    on({"index_put", "scatter", "scatter_add", "index_add", "index_copy"},
       scatterRule);
    on({"nonzero"}, nonzeroRule);
    on({"one_hot"}, oneHotRule);
    on({"_softmax", "softmax", "_log_softmax", "log_softmax",
        "_softmax_backward_data", "_log_softmax_backward_data",
        "native_layer_norm", "layer_norm", "native_layer_norm_backward"},
       lastDimRule);
    on({"scaled_dot_product_attention", "_scaled_dot_product_flash_attention",
        "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_cudnn_attention",
        "_scaled_dot_product_flash_attention_backward",
        "_scaled_dot_product_efficient_attention_backward",
        "_scaled_dot_product_cudnn_attention_backward"},
       attentionRule);
    // A serving engine's own kernels (vLLM's custom ops).
    on({"_C::rotary_embedding"}, rotaryRule);
    on({"_C_cache_ops::reshape_and_cache",
        "_C_cache_ops::reshape_and_cache_flash"},
       cacheWriteRule);
    on({"_C::rms_norm", "_C::fused_add_rms_norm", "_C::silu_and_mul"},
       servingRowRule);
    on({"record_param_comms"}, collectiveRule);
    on({"add",
        "sub",
        "mul",
        "div",
        "maximum",
        "minimum",
        "where",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "threshold_backward",
        "sigmoid_backward",
        "tanh_backward",
        "gelu_backward",
        "silu_backward",
        "addcmul",
        "addcdiv",
        "lerp",
        "rsub",
        "masked_scatter",
        "native_dropout_backward",
        "hardtanh_backward",
        "leaky_relu_backward",
        "logical_and",
        "logical_or",
        "bitwise_and",
        "bitwise_or",
        "pow"},
       binaryRule);
    on({"relu",         "clamp_min",  "clamp",
        "clamp_max",    "threshold",  "sigmoid",
        "tanh",         "gelu",       "silu",
        "neg",          "exp",        "log",
        "sqrt",         "rsqrt",      "abs",
        "reciprocal",   "dropout",    "native_dropout",
        "fill",         "zero",       "ones_like",
        "zeros_like",   "zeros",      "ones",
        "full",         "uniform",    "normal",
        "bernoulli",    "square",     "sign",
        "floor",        "ceil",       "round",
        "hardtanh",     "leaky_relu", "elu",
        "cumsum",       "arange",     "remainder",
        "cos",          "sin",        "erf",
        "log1p",        "expm1",      "softplus",
        "masked_fill",  "nan_to_num", "logical_not",
        "bitwise_not",  "copy",       "full_like",
        "isinf",        "isnan",      "repeat",
        "index",        "gather",     "index_select",
        "masked_select"},
       unaryRule);
    // Ops that only change metadata (views, shapes, allocation).
    on({"view",
        "_reshape_alias",
        "reshape",
        "as_strided",
        "t",
        "transpose",
        "permute",
        "expand",
        "squeeze",
        "unsqueeze",
        "slice",
        "select",
        "narrow",
        "flatten",
        "detach",
        "detach_",
        "empty",
        "empty_strided",
        "empty_like",
        "resize_",
        "set_",
        "lift_fresh",
        "alias",
        "unbind",
        "split",
        "split_with_sizes",
        "chunk",
        "result_type",
        "is_pinned",
        "record_stream",
        "item",
        "_local_scalar_dense",
        "size",
        "stride",
        "numel",
        "dim",
        "_unsafe_view",
        "view_as",
        "resolve_conj",
        "resolve_neg",
        "type_as",
        "new_empty",
        "new_empty_strided",
        "_has_compatible_shallow_copy_type",
        "requires_grad_",
        "expand_as"},
       noWork);
  }

  /// The rule of `name`: exact, then the out-of-place name of an in-place
  /// op, then the prefix rules of the foreach and fused optimizer families.
  Rule lookup(StringRef name) const {
    if (auto it = rules.find(name); it != rules.end())
      return it->second;
    if (name.ends_with("_"))
      if (auto it = rules.find(name.drop_back()); it != rules.end())
        return it->second;
    if (name.starts_with("_fused_adam") || name.starts_with("_fused_sgd"))
      return fusedOptimizerRule;
    if (name.starts_with("_foreach_"))
      return foreachRule;
    return nullptr;
  }

private:
  void on(std::initializer_list<StringRef> names, Rule rule) {
    for (StringRef name : names)
      rules.try_emplace(name, rule);
  }

  llvm::StringMap<Rule> rules;
};

const AtenRuleTable &atenRules() {
  static const AtenRuleTable table;
  return table;
}
} // namespace

bool perf::inferOpKernels(const TracedOp &op, int64_t worldSize,
                          std::vector<DeviceWork> &work) {
  StringRef name = baseName(op.name);
  Rule rule = atenRules().lookup(name);
  if (!rule)
    return false;
  size_t first = work.size();
  RuleContext context{op, name, worldSize, work};
  rule(context);
  // cuBLAS, cuDNN and fused attention run half and TF32 kernels on tensor
  // cores: every importer of ATen ops (trace, config, fx) marks them here.
  for (DeviceWork &w : llvm::drop_begin(work, first))
    if (auto *k = std::get_if<KernelDesc>(&w))
      k->tensorCores = runsOnTensorCores(k->kind, k->dtype);
  return true;
}

TracedOp perf::tracedOpFromNode(const ExecNode &node) {
  TracedOp op;
  op.name = node.name;
  auto convert = [](const TensorArg &t) {
    TracedTensor out;
    out.shape = t.shape;
    out.strides = t.strides;
    out.dtype = t.dtype;
    out.device = t.device;
    out.tensorId = t.tensorId;
    return out;
  };
  for (const TensorArg &t : node.inputs)
    op.inputs.push_back(convert(t));
  for (const TensorArg &t : node.outputs)
    op.outputs.push_back(convert(t));
  op.inputTypes = node.inputTypes;
  op.scalars = node.scalarInputs;
  return op;
}

static void inferRecursive(const ExecutionTrace &et, size_t index,
                           int64_t worldSize, std::vector<DeviceWork> &out,
                           std::vector<std::string> *unknown, unsigned depth) {
  const ExecNode &node = et.nodes()[index];
  TracedOp op = tracedOpFromNode(node);
  if (inferOpKernels(op, worldSize, out))
    return;
  if (node.children.empty() || depth > 64) {
    // Autograd nodes with nothing recorded under them only pass gradients
    // on (AddBackward0, TBackward0, ViewBackward0).
    StringRef name(node.name);
    bool gradientPassThrough = name.drop_back().ends_with("Backward") &&
                               name.back() >= '0' && name.back() <= '9';
    if (unknown && node.isOperator && !gradientPassThrough)
      unknown->push_back(node.name);
    return;
  }
  for (size_t child : node.children)
    inferRecursive(et, child, worldSize, out, unknown, depth + 1);
}

std::vector<DeviceWork>
perf::inferNodeKernels(const ExecutionTrace &et, size_t index,
                       int64_t worldSize, std::vector<std::string> *unknown) {
  std::vector<DeviceWork> kernels;
  inferRecursive(et, index, worldSize, kernels, unknown, 0);
  return kernels;
}
