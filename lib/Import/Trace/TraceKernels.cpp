//===- TraceKernels.cpp - Kernels of a traced framework op ----------------===//

#include "perf/Import/TraceKernels.h"
#include "llvm/ADT/StringSet.h"
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

StringRef perf::measuredClassOf(TraceKernelKind kind) {
  switch (kind) {
  case TraceKernelKind::Gemm:
    return "gemm";
  case TraceKernelKind::EmbeddingBag:
    return "embedding";
  case TraceKernelKind::Reduce:
    return "reduce";
  case TraceKernelKind::Softmax:
    return "softmax";
  case TraceKernelKind::LayerNorm:
  case TraceKernelKind::BatchNorm:
    return "norm";
  case TraceKernelKind::Conv2d:
    return "conv";
  case TraceKernelKind::Memcpy:
    return "memcpy";
  case TraceKernelKind::AllReduce:
  case TraceKernelKind::AllGather:
  case TraceKernelKind::ReduceScatter:
  case TraceKernelKind::AllToAll:
    return "nccl";
  default:
    return "elementwise";
  }
}

bool perf::measuredMatches(StringRef measured, TraceKernelKind kind) {
  StringRef expected = measuredClassOf(kind);
  if (measured == expected)
    return true;
  // Concatenation, optimizer and loss kernels carry library-specific names
  // ("CatArrayBatchedCopy", "multi_tensor_apply_kernel"): any kernel the
  // classifier cannot place may be them.
  return measured == "other" && expected == "elementwise";
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

/// Ops that only change metadata (views, shapes, allocation): no kernels.
bool isMetadataOp(StringRef n) {
  static const llvm::StringSet<> names = {"view",
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
                                          "contiguous",
                                          "_unsafe_view",
                                          "view_as",
                                          "resolve_conj",
                                          "resolve_neg",
                                          "to",
                                          "type_as",
                                          "new_empty",
                                          "new_empty_strided",
                                          "_has_compatible_shallow_copy_type",
                                          "requires_grad_",
                                          "expand_as"};
  return names.contains(n);
}

bool isUnaryElementwise(StringRef n) {
  n.consume_back("_");
  static const llvm::StringSet<> names = {
      "relu",       "clamp_min",   "clamp",
      "clamp_max",  "threshold",   "sigmoid",
      "tanh",       "gelu",        "silu",
      "neg",        "exp",         "log",
      "sqrt",       "rsqrt",       "abs",
      "reciprocal", "dropout",     "native_dropout",
      "fill",       "zero",        "ones_like",
      "zeros_like", "zeros",       "ones",
      "full",       "uniform",     "normal",
      "bernoulli",  "clone",       "copy",
      "square",     "sign",        "floor",
      "ceil",       "round",       "hardtanh",
      "leaky_relu", "elu",         "cumsum",
      "arange",     "remainder",   "pow",
      "mul_",       "cos",         "sin",
      "erf",        "log1p",       "expm1",
      "softplus",   "masked_fill", "_to_copy",
      "nan_to_num", "logical_not", "bitwise_not"};
  return names.contains(n);
}

bool isBinaryElementwise(StringRef n) {
  n.consume_back("_");
  static const llvm::StringSet<> names = {"add",
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
                                          "pow"};
  return names.contains(n);
}

bool isOnDevice(const TracedTensor &t) {
  return StringRef(t.device).starts_with("cuda") ||
         StringRef(t.device).starts_with("hip");
}

/// h2d, d2h or d2d from the devices of a copy; empty when both are on the
/// host (no device work).
std::string copyKind(const TracedTensor &src, const TracedTensor &dst) {
  bool srcDev = isOnDevice(src), dstDev = isOnDevice(dst);
  if (!src.device.empty() && !dst.device.empty() && !srcDev && !dstDev)
    return "";
  if (!srcDev && !src.device.empty() && dstDev)
    return "h2d";
  if (srcDev && !dstDev && !dst.device.empty())
    return "d2h";
  return "d2d";
}

int64_t itemBytes(const TracedTensor &t) {
  return dtypeBytes(dtypeFromTraceName(t.dtype));
}

TraceKernel elementwise(const TracedOp &op, StringRef fn, int64_t inputs,
                        double flops = 1.0) {
  TraceKernel k;
  k.kind = TraceKernelKind::Elementwise;
  k.fn = fn.str();
  k.inputs = inputs;
  k.flopsPerElement = flops;
  int64_t elements = 0;
  for (const TracedTensor &t : op.outputs)
    elements = std::max(elements, t.numel());
  if (elements == 0)
    for (const TracedTensor &t : op.inputs)
      elements = std::max(elements, t.numel());
  k.elements = elements;
  const TracedTensor *typed = !op.outputs.empty()  ? &op.outputs.front()
                              : !op.inputs.empty() ? &op.inputs.front()
                                                   : nullptr;
  if (typed)
    k.dtype = dtypeFromTraceName(typed->dtype);
  return k;
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
std::optional<TraceKernelKind> collectiveKind(StringRef name) {
  std::string lower = name.lower();
  StringRef n(lower);
  if (n.contains("all_reduce") || n.contains("allreduce"))
    return TraceKernelKind::AllReduce;
  if (n.contains("all_to_all") || n.contains("alltoall"))
    return TraceKernelKind::AllToAll;
  if (n.contains("all_gather") || n.contains("allgather"))
    return TraceKernelKind::AllGather;
  if (n.contains("reduce_scatter") || n.contains("reducescatter"))
    return TraceKernelKind::ReduceScatter;
  return std::nullopt;
}
} // namespace

bool perf::inferOpKernels(const TracedOp &op, int64_t worldSize,
                          std::vector<TraceKernel> &kernels) {
  StringRef n = baseName(op.name);
  const auto &in = op.inputs;
  auto shapeOf = [&](size_t i) -> llvm::ArrayRef<int64_t> {
    return i < in.size() ? llvm::ArrayRef<int64_t>(in[i].shape)
                         : llvm::ArrayRef<int64_t>();
  };
  auto dtypeOf = [&](size_t i) {
    return i < in.size() ? dtypeFromTraceName(in[i].dtype) : DType::F32;
  };
  auto gemm = [&](int64_t batch, int64_t m, int64_t nn, int64_t k, DType dtype,
                  bool transB = false) {
    TraceKernel g;
    g.kind = TraceKernelKind::Gemm;
    g.batch = batch;
    g.m = m;
    g.n = nn;
    g.k = k;
    g.transB = transB;
    g.dtype = dtype;
    kernels.push_back(g);
  };

  // Matrix multiplies.
  if (n == "addmm" || n == "mm") {
    size_t a = n == "addmm" ? 1 : 0;
    auto sa = shapeOf(a), sb = shapeOf(a + 1);
    if (sa.size() == 2 && sb.size() == 2)
      gemm(1, sa[0], sb[1], sa[1], dtypeOf(a));
    return true;
  }
  if (n == "bmm" || n == "baddbmm") {
    size_t a = n == "baddbmm" ? 1 : 0;
    auto sa = shapeOf(a), sb = shapeOf(a + 1);
    if (sa.size() == 3 && sb.size() == 3)
      gemm(sa[0], sa[1], sb[2], sa[2], dtypeOf(a));
    return true;
  }
  if (n == "linear") {
    auto x = shapeOf(0), w = shapeOf(1);
    if (x.size() >= 1 && w.size() == 2)
      gemm(1, product(x.drop_back()), w[0], x.back(), dtypeOf(0),
           /*transB=*/true);
    return true;
  }
  if (n == "matmul") {
    auto a = shapeOf(0), b = shapeOf(1);
    if (a.size() >= 2 && b.size() == 2)
      gemm(1, product(a.drop_back()), b[1], a.back(), dtypeOf(0));
    else if (a.size() >= 3 && b.size() >= 3)
      gemm(product(a.drop_back(2)), a[a.size() - 2], b.back(), a.back(),
           dtypeOf(0));
    else if (a.size() == 2 && b.size() == 1)
      gemm(1, a[0], 1, a[1], dtypeOf(0));
    else if (a.size() == 1 && b.size() == 2)
      gemm(1, 1, b[1], a[0], dtypeOf(0));
    return true;
  }

  // Embedding lookups: weight [rows, dim], indices [L], offsets [bags].
  if (n == "embedding_bag" || n == "_embedding_bag" || n == "embedding") {
    auto w = shapeOf(0);
    if (w.size() != 2)
      return true;
    TraceKernel e;
    e.kind = TraceKernelKind::EmbeddingBag;
    e.rows = w[0];
    e.dim = w[1];
    e.dtype = dtypeOf(0);
    int64_t lookups = in.size() > 1 ? in[1].numel() : 0;
    if (n == "embedding") {
      e.bags = lookups;
      e.pooling = 1;
    } else {
      e.bags = in.size() > 2 ? std::max<int64_t>(in[2].numel(), 1) : 1;
      e.pooling = std::max<int64_t>(1, lookups / e.bags);
    }
    kernels.push_back(e);
    return true;
  }
  if (n == "_embedding_bag_backward" || n == "embedding_bag_backward" ||
      n == "_embedding_bag_dense_backward" ||
      n == "_embedding_bag_sparse_backward" || n == "embedding_backward" ||
      n == "embedding_dense_backward") {
    // (grad [bags, dim], indices [L], offsets [bags], ..., num_weights)
    auto g = shapeOf(0);
    if (g.size() != 2)
      return true;
    TraceKernel e;
    e.kind = TraceKernelKind::EmbeddingBag;
    e.pass = "bwd";
    e.dim = g[1];
    e.bags = g[0];
    int64_t lookups = in.size() > 1 ? in[1].numel() : 0;
    e.pooling = std::max<int64_t>(1, lookups / std::max<int64_t>(e.bags, 1));
    e.rows = std::max<int64_t>(1, firstIntegerScalar(op, 1));
    e.dtype = dtypeOf(0);
    kernels.push_back(e);
    return true;
  }

  // Convolutions: input [N, C, H, W], weight [K, C / groups, R, S]. The
  // stride/padding/dilation lists come in schema order.
  bool convForward = n == "conv2d" || n == "convolution" ||
                     n == "_convolution" || n == "cudnn_convolution" ||
                     n == "mkldnn_convolution" || n == "miopen_convolution";
  bool convBackward = n == "convolution_backward" ||
                      n == "cudnn_convolution_backward" ||
                      n == "mkldnn_convolution_backward";
  if (convForward || convBackward) {
    // Backward ops take (grad_output, input, weight) or (input, grad, weight).
    size_t inputIdx = 0, weightIdx = 1;
    if (n == "convolution_backward") {
      inputIdx = 1;
      weightIdx = 2;
    } else if (convBackward) {
      weightIdx = 2;
    }
    auto x = shapeOf(inputIdx), wt = shapeOf(weightIdx);
    if (x.size() != 4 || wt.size() != 4)
      return true;
    std::vector<std::vector<int64_t>> lists = intLists(op);
    // convolution_backward lists bias sizes first; cudnn_* put padding
    // before stride.
    size_t first = n == "convolution_backward" ? 1 : 0;
    // Without the argument lists (profiler Input Dims) stride and padding
    // are unknown: leave the kernel to the measurement.
    if (lists.size() < first + 2)
      return true;
    bool padFirst = n.starts_with("cudnn_") || n.starts_with("miopen_");
    auto stride = hw(lists, first + (padFirst ? 1 : 0), 1);
    auto pad = hw(lists, first + (padFirst ? 0 : 1), 0);
    auto dilation = hw(lists, first + 2, 1);
    TraceKernel k;
    k.kind = TraceKernelKind::Conv2d;
    k.batch = x[0];
    k.c = x[1];
    k.h = x[2];
    k.w = x[3];
    k.outChannels = wt[0];
    k.r = wt[2];
    k.s = wt[3];
    std::tie(k.strideH, k.strideW) = stride;
    std::tie(k.padH, k.padW) = pad;
    std::tie(k.dilationH, k.dilationW) = dilation;
    k.groups = std::max<int64_t>(1, x[1] / std::max<int64_t>(wt[1], 1));
    k.dtype = dtypeOf(inputIdx);
    if (convForward) {
      kernels.push_back(k);
    } else {
      k.pass = "dgrad";
      kernels.push_back(k);
      k.pass = "wgrad";
      kernels.push_back(k);
    }
    return true;
  }
  if (n == "max_pool2d" || n == "max_pool2d_with_indices" ||
      n == "avg_pool2d" || n == "max_pool2d_with_indices_backward" ||
      n == "avg_pool2d_backward" || n == "adaptive_avg_pool2d" ||
      n == "_adaptive_avg_pool2d" || n == "_adaptive_avg_pool2d_backward") {
    bool backward = n.ends_with("_backward");
    // Backward ops take (grad_output, input, ...): the window runs over the
    // input.
    size_t inputIdx = backward && in.size() > 1 ? 1 : 0;
    auto x = shapeOf(inputIdx);
    if (x.size() != 4)
      return true;
    TraceKernel k;
    k.kind = TraceKernelKind::Pooling;
    k.batch = x[0];
    k.c = x[1];
    k.h = x[2];
    k.w = x[3];
    std::vector<std::vector<int64_t>> lists = intLists(op);
    if (n.contains("adaptive")) {
      auto out = hw(lists, 0, 1);
      if (backward && !shapeOf(0).empty() && shapeOf(0).size() == 4)
        out = {shapeOf(0)[2], shapeOf(0)[3]};
      k.r = k.strideH =
          std::max<int64_t>(1, x[2] / std::max<int64_t>(out.first, 1));
      k.s = k.strideW =
          std::max<int64_t>(1, x[3] / std::max<int64_t>(out.second, 1));
    } else {
      if (lists.empty())
        return true;
      std::tie(k.r, k.s) = hw(lists, 0, 1);
      std::tie(k.strideH, k.strideW) = hw(lists, 1, k.r);
      std::tie(k.padH, k.padW) = hw(lists, 2, 0);
    }
    if (backward)
      k.pass = "bwd";
    k.dtype = dtypeOf(inputIdx);
    kernels.push_back(k);
    return true;
  }
  if (n == "native_batch_norm" || n == "cudnn_batch_norm" ||
      n == "batch_norm" || n == "_batch_norm_impl_index" ||
      n == "native_batch_norm_backward" || n == "cudnn_batch_norm_backward" ||
      n == "miopen_batch_norm") {
    auto x = shapeOf(0);
    if (x.size() < 2)
      return true;
    TraceKernel k;
    k.kind = TraceKernelKind::BatchNorm;
    k.elements = product(x);
    k.c = x[1];
    if (n.contains("backward"))
      k.pass = "bwd";
    k.dtype = dtypeOf(0);
    kernels.push_back(k);
    return true;
  }

  if (n == "cat" || n == "concat" || n == "_cat" || n == "stack") {
    TraceKernel c;
    c.kind = TraceKernelKind::Concat;
    for (const TracedTensor &t : op.outputs)
      c.elements += t.numel();
    if (c.elements == 0)
      for (const TracedTensor &t : in)
        c.elements += t.numel();
    c.dtype = dtypeOf(0);
    kernels.push_back(c);
    return true;
  }

  // Copies: to/_to_copy (src -> output), copy_ (dst <- src).
  if (n == "copy_" || n == "_to_copy" || n == "to" || n == "clone" ||
      n == "contiguous") {
    const TracedTensor *src = nullptr, *dst = nullptr;
    if (n == "copy_" && in.size() >= 2) {
      src = &in[1];
      dst = &in[0];
    } else if (!in.empty() && !op.outputs.empty()) {
      src = &in[0];
      dst = &op.outputs[0];
      // to()/contiguous() that return their input launch nothing.
      if (src->tensorId >= 0 && src->tensorId == dst->tensorId)
        return true;
    } else if (n == "to" || n == "contiguous") {
      return true;
    }
    if (!src)
      return true;
    std::string kind = copyKind(*src, *dst);
    if (kind.empty())
      return true;
    TraceKernel c;
    c.kind = TraceKernelKind::Memcpy;
    c.copyKind = kind;
    c.bytes = src->numel() * itemBytes(*src);
    c.dtype = dtypeFromTraceName(src->dtype);
    if (c.bytes > 0)
      kernels.push_back(c);
    return true;
  }

  if (n == "mse_loss") {
    kernels.push_back(elementwise(op, "mse_loss", 2, 3.0));
    kernels.back().elements = in.empty() ? 0 : in[0].numel();
    TraceKernel r;
    r.kind = TraceKernelKind::Reduce;
    r.rows = 1;
    r.dim = kernels.back().elements;
    r.dtype = dtypeOf(0);
    kernels.push_back(r);
    return true;
  }
  if (n == "mse_loss_backward") {
    TraceKernel k = elementwise(op, "mse_loss_backward", 3, 3.0);
    if (in.size() > 1)
      k.elements = in[1].numel();
    kernels.push_back(k);
    return true;
  }

  if (n == "sum" || n == "mean" || n == "nll_loss_forward" || n == "norm" ||
      n == "amax" || n == "max" || n == "min" || n == "nll_loss2d_forward") {
    TraceKernel r;
    r.kind = TraceKernelKind::Reduce;
    int64_t total = in.empty() ? 0 : in[0].numel();
    int64_t out = 1;
    if (!op.outputs.empty())
      out = std::max<int64_t>(1, op.outputs[0].numel());
    r.rows = out;
    r.dim = total / out;
    r.dtype = dtypeOf(0);
    kernels.push_back(r);
    return true;
  }
  if (n == "_softmax" || n == "softmax" || n == "_log_softmax" ||
      n == "log_softmax" || n == "_softmax_backward_data" ||
      n == "_log_softmax_backward_data" || n == "native_layer_norm" ||
      n == "layer_norm" || n == "native_layer_norm_backward") {
    auto s = shapeOf(0);
    if (s.empty())
      return true;
    TraceKernel k;
    k.kind = n.contains("norm") ? TraceKernelKind::LayerNorm
                                : TraceKernelKind::Softmax;
    k.dim = s.back();
    k.rows = product(s.drop_back());
    k.dtype = dtypeOf(0);
    if (n.contains("backward"))
      k.pass = "bwd";
    kernels.push_back(k);
    return true;
  }

  // Optimizer updates.
  if (n.starts_with("_fused_adam") || n.starts_with("_fused_sgd")) {
    TraceKernel k;
    k.kind = TraceKernelKind::Optimizer;
    k.algorithm = n.starts_with("_fused_adam") ? "adam" : "sgd";
    k.pass = "update";
    unsigned lists = 0;
    for (const std::string &t : op.inputTypes)
      lists += StringRef(t).starts_with("GenericList[Tensor");
    int64_t total = 0;
    for (const TracedTensor &t : in)
      total += t.numel();
    k.elements = total / std::max(1u, lists);
    kernels.push_back(k);
    return true;
  }
  if (n.starts_with("_foreach_")) {
    unsigned lists = 0;
    for (const std::string &t : op.inputTypes)
      lists += StringRef(t).starts_with("GenericList[Tensor");
    int64_t total = 0;
    for (const TracedTensor &t : in)
      total += t.numel();
    TraceKernel k;
    k.kind = TraceKernelKind::Elementwise;
    k.fn = n.str();
    k.pass = "update";
    k.inputs = std::max(1u, lists);
    k.elements = total / std::max(1u, lists);
    kernels.push_back(k);
    return true;
  }

  // Collectives: record_param_comms(tensors..., seq, pg, rank, name,
  // in_splits, out_splits) and the newer layouts with more scalars.
  if (op.name == "record_param_comms") {
    std::optional<TraceKernelKind> kind;
    int64_t group = 0;
    for (const llvm::json::Value &v : op.scalars) {
      if (std::optional<StringRef> s = v.getAsString())
        if (!kind)
          kind = collectiveKind(*s);
      if (const llvm::json::Array *splits = v.getAsArray())
        group = std::max<int64_t>(group, splits->size());
    }
    if (!kind)
      return true; // wait, barrier, broadcast of nothing
    TraceKernel c;
    c.kind = *kind;
    for (const TracedTensor &t : in)
      c.bytes += t.numel() * itemBytes(t);
    c.groupSize = group > 0 ? group : std::max<int64_t>(worldSize, 1);
    if (!in.empty())
      c.dtype = dtypeOf(0);
    if (c.bytes > 0)
      kernels.push_back(c);
    return true;
  }

  if (isBinaryElementwise(n)) {
    unsigned tensors = std::max<size_t>(1, std::min<size_t>(in.size(), 3));
    kernels.push_back(elementwise(op, n, tensors));
    return true;
  }
  if (isUnaryElementwise(n)) {
    kernels.push_back(elementwise(op, n, std::min<size_t>(in.size(), 1)));
    return true;
  }
  if (isMetadataOp(n))
    return true;
  return false;
}

TracedOp perf::tracedOpFromNode(const ExecNode &node) {
  TracedOp op;
  op.name = node.name;
  auto convert = [](const TensorArg &t) {
    TracedTensor out;
    out.shape = t.shape;
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
                           int64_t worldSize, std::vector<TraceKernel> &out,
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

std::vector<TraceKernel>
perf::inferNodeKernels(const ExecutionTrace &et, size_t index,
                       int64_t worldSize, std::vector<std::string> *unknown) {
  std::vector<TraceKernel> kernels;
  inferRecursive(et, index, worldSize, kernels, unknown, 0);
  return kernels;
}
