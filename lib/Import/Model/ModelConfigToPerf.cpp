//===- ModelConfigToPerf.cpp - A transformer step from config.json --------===//
//
// Builds the step PyTorch eager runs for a HuggingFace model: one perf.op per
// ATen op that launches work, with the tensors it reads and writes as SSA
// values, named after the module it belongs to
// ("transformer.h.3.mlp.c_fc"). Each op is described the way a trace records
// it (name, input shapes, output shape) and takes its kernels from the one
// ATen rule table (TraceKernels.cpp), so an op is priced the same whether it
// was traced or built here. Views and reshapes launch nothing and are not
// emitted. Training steps get their backward from --perf-synthesize-training.
//
//===----------------------------------------------------------------------===//

#include "perf/Import/ImportTranslation.h"
#include "perf/Import/ModelConfig.h"
#include "perf/Import/ModelConfigImport.h"
#include "perf/Import/TraceKernels.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "perf/Dialect/PerfDialect.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Support/DType.h"
#include "perf/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace perf;
using namespace mlir;

namespace {

/// How an ATen op's tensors are spelt in a trace, so the rule table parses
/// them as it parses a real one.
StringRef traceDtypeName(DType t) {
  switch (t) {
  case DType::F16:
    return "c10::Half";
  case DType::BF16:
    return "c10::BFloat16";
  case DType::I64:
    return "long int";
  case DType::Bool:
    return "bool";
  case DType::F64:
    return "double";
  default:
    return "float";
  }
}

using Shape = SmallVector<int64_t, 4>;

/// A tensor of the step: its SSA value (null for parameters and constants,
/// which no op produces), shape and, for a view whose elements are not in
/// row-major order, its element strides (empty: contiguous). The strides
/// decide whether PyTorch's element-wise loops and copies run vectorized.
struct Tensor {
  Value value;
  Shape shape;
  DType dtype = DType::F32;
  Shape strides = {};

  /// The same data seen with another shape (view, reshape), contiguous.
  Tensor as(ArrayRef<int64_t> newShape) const {
    return Tensor{value, Shape(newShape.begin(), newShape.end()), dtype};
  }

  /// The strides of this tensor: its own, or a contiguous tensor's.
  Shape stridesOrContiguous() const {
    if (!strides.empty())
      return strides;
    std::vector<int64_t> contiguous = contiguousStrides(shape);
    return Shape(contiguous.begin(), contiguous.end());
  }

  /// The heads of a [B, S, width] projection seen as [B, heads, S, dim]
  /// (view(B, S, heads, dim).transpose(1, 2)): a permuted view whose rows
  /// are `width` elements apart.
  Tensor headsView(int64_t heads, int64_t dim, int64_t width) const {
    int64_t b = shape.front(), seq = shape.size() > 2 ? shape[1] : 1;
    return Tensor{value, Shape{b, heads, seq, dim}, dtype,
                  Shape{seq * width, dim, width, 1}};
  }

  /// The first `size` elements of the last dimension (x[..., :size]).
  Tensor lastDimSlice(int64_t size) const {
    Tensor t{value, shape, dtype, stridesOrContiguous()};
    t.shape.back() = size;
    return t;
  }

  /// [B, H, K, D] with each head repeated `groups` times, as
  /// [B, H, groups, K, D] (expand; the repeat reads each head `groups` times).
  Tensor expandedHeads(int64_t groups) const {
    Shape st = stridesOrContiguous();
    return Tensor{value, Shape{shape[0], shape[1], groups, shape[2], shape[3]},
                  dtype, Shape{st[0], st[1], 0, st[2], st[3]}};
  }
};

class StepBuilder {
public:
  StepBuilder(MLIRContext *ctx, Location loc, const TransformerConfig &c,
              const StepOptions &s)
      : b(ctx), loc(loc), c(c), s(s), B(s.batch), S(s.seq),
        K(s.seq + s.context), H(c.hidden), nh(c.heads), kvh(c.kvHeads),
        d(c.headDim()), F(c.ffn), V(c.vocab) {}

  OwningOpRef<ModuleOp> build(StringRef graphName) {
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto graph = GraphOp::create(b, loc, graphName);
    b.setInsertionPointToEnd(&graph.getBodyBlock());
    if (s.engine == StepEngine::Vllm) {
      // The engine replays its captured step as CUDA graphs.
      graph->setAttr(kCudaGraphAttr, b.getUnitAttr());
      vllmDecoder();
      return kernelBeyondLimits ? nullptr : std::move(module);
    }
    switch (c.family) {
    case ModelFamily::Gpt2:
      gpt2();
      break;
    case ModelFamily::Opt:
      opt();
      break;
    case ModelFamily::Bert:
      bert();
      break;
    case ModelFamily::Llama:
      llama();
      break;
    case ModelFamily::T5:
      t5();
      break;
    }
    if (kernelBeyondLimits)
      return nullptr;
    return module;
  }

private:
  OpBuilder b;
  Location loc;
  const TransformerConfig &c;
  const StepOptions &s;
  /// B: batch; S: tokens of the step; K: keys each attends to (S, or the
  /// KV cache's context plus S when decoding).
  const int64_t B, S, K, H, nh, kvh, d, F, V;
  int64_t nextTensorId = 0;
  std::string scope;
  /// The transformer block being emitted (numbered across the model's
  /// stacks), -1 outside blocks: recomputation and ZeRO-3 work per block.
  int64_t layer = -1, nextLayer = 0;
  /// The expert of a mixture-of-experts layer being emitted, -1 outside:
  /// expert parallelism places each expert's ops on a device.
  int64_t expert = -1;
  /// Whether a kernel's sizes were above the dialect's limits (reported).
  bool kernelBeyondLimits = false;
  /// Whether a mixture-of-experts router is being emitted: tensor
  /// parallelism keeps its weights whole on every rank.
  bool router = false;

  bool training() const { return s.phase == StepPhase::Training; }

  /// Whether the step is transformers 5's (the release whose cache copies,
  /// --kv-cache=copy): its eager attention is one function for every
  /// family (eager_attention_forward: a scale, an additive [B, 1, S, K]
  /// mask, and for OPT the softmax in FP32), and its projections stay
  /// transposed views.
  bool transformers5() const { return s.kvCache != KvCache::None; }

  Tensor param(ArrayRef<int64_t> shape) {
    return Tensor{Value(), Shape(shape.begin(), shape.end()), s.dtype};
  }
  Tensor constant(ArrayRef<int64_t> shape, DType dtype) {
    return Tensor{Value(), Shape(shape.begin(), shape.end()), dtype};
  }

  /// Emits ATen op `aten` reading `args` and writing a tensor of `shape`;
  /// `params` trainable parameters are among its inputs. Its kernels are
  /// the ATen rule table's for the op as a trace records it; `scalars` are
  /// its scalar arguments in argument order (null where a tensor is).
  Tensor op(StringRef name, StringRef aten, ArrayRef<Tensor> args,
            ArrayRef<int64_t> shape, int64_t params = 0,
            std::optional<DType> outType = std::nullopt,
            ArrayRef<llvm::json::Value> scalars = {},
            ArrayRef<int64_t> outStrides = {}) {
    DType resultType = outType.value_or(s.dtype);
    TracedOp traced;
    traced.name = aten.contains("::") ? aten.str() : ("aten::" + aten).str();
    for (const Tensor &t : args) {
      TracedTensor in;
      in.shape.assign(t.shape.begin(), t.shape.end());
      in.strides.assign(t.strides.begin(), t.strides.end());
      in.dtype = traceDtypeName(t.dtype).str();
      in.device = "cuda:0";
      in.tensorId = nextTensorId++;
      traced.inputs.push_back(std::move(in));
    }
    traced.scalars.assign(scalars.begin(), scalars.end());
    TracedTensor out;
    out.shape.assign(shape.begin(), shape.end());
    out.strides.assign(outStrides.begin(), outStrides.end());
    out.dtype = traceDtypeName(resultType).str();
    out.device = "cuda:0";
    out.tensorId = nextTensorId++;
    traced.outputs.push_back(out);
    std::vector<DeviceWork> work;
    if (!inferOpKernels(traced, 1, work))
      llvm::report_fatal_error(("no ATen rule for " + traced.name).c_str());
    Tensor result =
        emit(name, traced.name, args, shape, params, resultType, work);
    result.strides.assign(outStrides.begin(), outStrides.end());
    return result;
  }

  /// Emits framework op `opName` launching `work`, reading `args` and
  /// writing a tensor of `shape` and `resultType`.
  Tensor emit(StringRef name, StringRef opName, ArrayRef<Tensor> args,
              ArrayRef<int64_t> shape, int64_t params, DType resultType,
              ArrayRef<DeviceWork> work) {
    SmallVector<Value> operands;
    for (const Tensor &t : args)
      if (t.value)
        operands.push_back(t.value);
    Type resultTensor = RankedTensorType::get(
        shape, getElementType(b.getContext(), resultType));
    std::string fullName =
        scope.empty() ? name.str() : scope + "." + name.str();
    Location opLoc = NameLoc::get(b.getStringAttr(fullName), loc);
    auto fw = FrameworkOp::create(b, opLoc, TypeRange{resultTensor},
                                  b.getStringAttr(opName), operands,
                                  b.getI64IntegerAttr(0));
    // Stated even when zero: without it the training synthesis would take
    // an attention matmul's B operand or a tied table for parameters.
    bool weightedKernel = llvm::any_of(work, [](const DeviceWork &w) {
      const auto *k = std::get_if<KernelDesc>(&w);
      return k && (k->kind == KernelKind::Gemm ||
                   k->kind == KernelKind::EmbeddingBag);
    });
    if (params > 0 || weightedKernel)
      fw->setAttr(kParamsAttr, b.getI64IntegerAttr(params));
    if (layer >= 0)
      fw->setAttr(kLayerAttr, b.getI64IntegerAttr(layer));
    if (expert >= 0)
      fw->setAttr(kExpertAttr, b.getI64IntegerAttr(expert));
    if (router)
      fw->setAttr(kRouterAttr, b.getUnitAttr());
    // A kernel above the dialect's limits (a batch and sequence whose
    // activations pass max-extent) fails the import at its op; one the
    // rules gave no work is left out.
    SmallVector<WorkAttr> kernels;
    for (const DeviceWork &w : work) {
      if (kernelBeyondLimits)
        break; // Reported once; the import fails.
      FailureOr<WorkAttr> kernel =
          buildKernelWork(b.getContext(), std::get<KernelDesc>(w), [&] {
            return emitError(opLoc)
                   << "'" << fullName << "' (" << opName << "): ";
          });
      if (failed(kernel))
        kernelBeyondLimits = true;
      else if (*kernel)
        kernels.push_back(*kernel);
    }
    fw.setWorkList(kernels);
    return Tensor{fw.getResult(0), Shape(shape.begin(), shape.end()),
                  resultType};
  }

  /// Element-wise op whose output has the shape of its first input, and
  /// its layout: TensorIterator lays the output out as that input, a
  /// permuted view included.
  Tensor pointwise(StringRef name, StringRef aten, ArrayRef<Tensor> args) {
    const Tensor &first = args.front();
    return op(name, aten, args, first.shape, 0, std::nullopt, {},
              first.strides);
  }

  /// A one-element tensor made from a Python scalar (torch.full([], v)).
  Tensor scalarTensor(StringRef name) { return op(name, "full", {}, {}); }

  /// nn.Linear (and GPT-2's Conv1D): one GEMM with the bias in its epilogue
  /// (addmm) over the flattened tokens.
  Tensor linear(StringRef name, const Tensor &x, int64_t in, int64_t out,
                bool bias) {
    Shape outShape(x.shape.begin(), x.shape.end());
    outShape.back() = out;
    int64_t rows = 1;
    for (int64_t dim : ArrayRef<int64_t>(x.shape).drop_back())
      rows *= dim;
    int64_t params = in * out + (bias ? out : 0);
    if (bias)
      return op(name, "addmm",
                {param({out}), x.as({rows, in}), param({in, out})}, {rows, out},
                params)
          .as(outShape);
    return op(name, "linear", {x, param({out, in})}, outShape, params);
  }

  Tensor layerNorm(StringRef name, const Tensor &x) {
    return op(name, "native_layer_norm", {x}, x.shape, 2 * x.shape.back());
  }

  /// LlamaRMSNorm in eager PyTorch: pow, mean, add eps, rsqrt, two muls
  /// (plus casts to and from fp32 for half-precision steps).
  Tensor rmsNorm(StringRef name, const Tensor &x) {
    std::string n = name.str();
    Shape rowShape(x.shape.begin(), x.shape.end());
    rowShape.back() = 1;
    Tensor h = x;
    if (s.dtype != DType::F32)
      h = op(n + ".to_float", "_to_copy", {x}, x.shape, 0, DType::F32);
    Tensor sq = op(n + ".pow", "pow", {h}, h.shape, 0, DType::F32);
    Tensor var = op(n + ".mean", "mean", {sq}, rowShape, 0, DType::F32);
    var = op(n + ".add", "add", {var}, rowShape, 0, DType::F32);
    var = op(n + ".rsqrt", "rsqrt", {var}, rowShape, 0, DType::F32);
    h = op(n + ".mul", "mul", {h, var}, h.shape, 0, DType::F32);
    if (s.dtype != DType::F32)
      h = op(n + ".to", "_to_copy", {h}, h.shape);
    return op(n + ".weight", "mul", {param({x.shape.back()}), h}, x.shape,
              x.shape.back());
  }

  Tensor dropout(StringRef name, const Tensor &x) {
    // Dropout is the identity at inference (no kernel).
    if (!training())
      return x;
    return op(name, "native_dropout", {x}, x.shape);
  }

  /// The activation of the MLP, as its PyTorch module computes it.
  Tensor activation(StringRef name, const Tensor &x) {
    std::string n = name.str();
    if (c.activation == "gelu_new" || c.activation == "gelu_pytorch_tanh") {
      if (c.activation == "gelu_pytorch_tanh")
        return op(n, "gelu", {x}, x.shape);
      // NewGELU: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))),
      // eight element-wise kernels.
      Tensor half = pointwise(n + ".mul", "mul", {x});
      Tensor cube = pointwise(n + ".pow", "pow", {x});
      Tensor scaled = pointwise(n + ".mul_1", "mul", {cube});
      Tensor sum = pointwise(n + ".add", "add", {x, scaled});
      Tensor inner = pointwise(n + ".mul_2", "mul", {sum});
      Tensor th = pointwise(n + ".tanh", "tanh", {inner});
      Tensor onePlus = pointwise(n + ".add_1", "add", {th});
      return pointwise(n + ".mul_3", "mul", {half, onePlus});
    }
    StringRef aten = llvm::StringSwitch<StringRef>(c.activation)
                         .Case("gelu", "gelu")
                         .Case("relu", "relu")
                         .Default("silu");
    return op(n, aten, {x}, x.shape);
  }

  /// How a family's eager attention scales, masks and normalizes the
  /// scores, as its HuggingFace module does.
  struct AttentionStyle {
    /// GPT-2 divides by a one-element tensor, BERT by a Python float, Llama
    /// multiplies; OPT scales q before (none here).
    enum class Scale { None, DivByScalarTensor, Div, Mul } scale;
    /// GPT-2 selects with `where` against a [1, 1, S, K] mask; the others
    /// add a mask of `maskShape` then the keys, and OPT then takes the
    /// maximum with the minimum.
    enum class Mask { Where, Add, AddThenMax } mask;
    Shape maskShape;
    StringRef maskName = "add";
    /// Llama takes the softmax in fp32 and casts back.
    bool fp32Softmax = false;
    /// T5 converts the scores with `.float()` first (a copy in FP16 and
    /// BF16); Llama's softmax(dtype=float32) copies BF16 scores only.
    bool explicitUpcast = false;
    StringRef dropoutName = "attn_dropout";
    /// The ATen op of the fused kernel (--attention=sdpa|flash).
    StringRef fusedOp = "_scaled_dot_product_flash_attention";
  };

  /// Marks the op that wrote `cache` as a KV cache update extending a
  /// cache of `pastBytes` (0: the cache is the tensor itself): the memory
  /// analysis keeps both resident.
  Tensor cacheUpdate(Tensor cache, int64_t pastBytes) {
    if (cache.value)
      cache.value.getDefiningOp()->setAttr(kKvCacheAttr,
                                           b.getI64IntegerAttr(pastBytes));
    return cache;
  }

  /// Attention core from q [B, nh, S, d], k and v [B, kvh, S, d], to the
  /// context [B, S, nh * d]: the kernels of the eager module, or one fused
  /// attention kernel. Decoding appends k and v to the KV cache first.
  /// `cached`: a decoder-only model's self-attention, whose keys and values
  /// go into the KV cache (--kv-cache=copy).
  Tensor attention(Tensor q, Tensor k, Tensor v, const AttentionStyle &style,
                   bool cached = false) {
    using Scale = AttentionStyle::Scale;
    using Mask = AttentionStyle::Mask;
    int64_t heads = k.shape[1];
    if (s.context > 0) {
      // HF's cache update is torch.cat of the cached keys (values) and this
      // step's: a copy of the whole cache each step. A cropped cache is the
      // first `context` positions of the longer one a previous step made.
      Tensor pastK = constant({B, heads, s.context, d}, s.dtype);
      if (s.kvCache == KvCache::Cropped)
        pastK.strides = {heads * K * d, K * d, d, 1};
      Tensor pastV = pastK;
      int64_t pastBytes = B * heads * s.context * d * dtypeBytes(s.dtype);
      k = cacheUpdate(op("cache_k", "cat", {pastK, k}, {B, heads, K, d}),
                      pastBytes);
      v = cacheUpdate(op("cache_v", "cat", {pastV, v}, {B, heads, K, d}),
                      pastBytes);
    } else if (cached && s.kvCache != KvCache::None) {
      // transformers 5 starts each layer's cache empty and appends the
      // step's keys and values with torch.cat: a copy of each.
      k = cacheUpdate(op("cache_k", "cat", {k}, {B, heads, K, d}), 0);
      v = cacheUpdate(op("cache_v", "cat", {v}, {B, heads, K, d}), 0);
    } else if (cached && s.phase == StepPhase::Inference) {
      // transformers 4 returns the step's keys and values themselves as
      // the cache: the tensors they are (GPT-2's, views of the whole c_attn
      // output) outlive the step.
      k = cacheUpdate(k, 0);
      v = cacheUpdate(v, 0);
    }
    if (kvh != nh && s.attention == AttentionImpl::Eager) {
      // repeat_kv: expand and copy k and v to every query head. SDPA takes
      // the key heads as they are (enable_gqa, transformers 4.48 and later
      // on PyTorch 2.5 and later).
      k = op("repeat_kv", "clone", {k.expandedHeads(nh / kvh)}, {B, nh, K, d});
      v = op("repeat_kv_1", "clone", {v.expandedHeads(nh / kvh)},
             {B, nh, K, d});
    }
    Tensor ctx;
    if (s.attention == AttentionImpl::Fused) {
      // A decoder's self-attention masks causally when it has more than
      // one query (is_causal, the flash kernel's fifth argument); one query
      // over a cache sees every key.
      bool causal = cached && S > 1;
      llvm::json::Value none(nullptr);
      ctx = op("sdpa", style.fusedOp, {q, k, v}, {B, nh, S, d}, 0, std::nullopt,
               {none, none, none, 0.0, causal});
    } else {
      Tensor scores =
          op("matmul", "matmul", {q, k.as({B, nh, d, K})}, {B, nh, S, K});
      if (style.scale == Scale::DivByScalarTensor)
        scores = pointwise("truediv", "div", {scores, scalarTensor("full")});
      else if (style.scale == Scale::Div)
        scores = pointwise("truediv", "div", {scores});
      else if (style.scale == Scale::Mul)
        scores = pointwise("mul", "mul", {scores});
      if (style.mask == Mask::Where) {
        Tensor minValue = scalarTensor("full_1");
        scores =
            pointwise("where", "where",
                      {scores, constant({1, 1, S, K}, DType::Bool), minValue});
      } else {
        Shape mask = style.maskShape;
        mask.push_back(K);
        scores =
            pointwise(style.maskName, "add", {scores, constant(mask, s.dtype)});
        if (style.mask == Mask::AddThenMax) {
          Tensor minValue = scalarTensor("tensor");
          scores = pointwise("max", "maximum", {scores, minValue});
        }
      }
      Tensor probs;
      if (style.fp32Softmax) {
        // softmax(x, dtype=float32) converts a BF16 input with a copy kernel
        // first (only FP16 has a fused half-to-float softmax on CUDA); T5's
        // scores.float() is a copy in either half type.
        if (s.dtype == DType::BF16 ||
            (style.explicitUpcast && s.dtype == DType::F16))
          scores = op("softmax_upcast", "_to_copy", {scores}, scores.shape, 0,
                      DType::F32);
        probs =
            op("softmax", "_softmax", {scores}, scores.shape, 0, DType::F32);
        if (s.dtype != DType::F32)
          probs = op("to", "_to_copy", {probs}, probs.shape);
      } else {
        probs = pointwise("softmax", "_softmax", {scores});
      }
      probs = dropout(style.dropoutName, probs);
      ctx = op("matmul_1", "matmul", {probs, v}, {B, nh, S, d});
    }
    // transpose(1, 2).contiguous(): a real copy to [B, S, nh, d], but for
    // a fused kernel, which writes its output in that layout already.
    if (s.attention == AttentionImpl::Fused)
      return ctx.as({B, S, nh * d});
    return op("contiguous", "contiguous", {ctx.as({B, S, nh, d})},
              {B, S, nh, d})
        .as({B, S, nh * d});
  }

  /// The host blocks until the device drains: a data-dependent size
  /// (nonzero, a tensor used as a Python int) is read back.
  void hostSync() {
    auto sync = SyncOp::create(b, loc, b.getI64IntegerAttr(0), nullptr);
    if (expert >= 0)
      sync->setAttr(kExpertAttr, b.getI64IntegerAttr(expert));
  }

  /// Runs `body` under module path `name`.
  template <typename Fn> auto within(const std::string &name, Fn body) {
    std::string saved = scope;
    scope = scope.empty() ? name : scope + "." + name;
    auto result = body();
    scope = saved;
    return result;
  }

  /// Runs `body`, one transformer block, under module path `name`; its ops
  /// carry the block's number.
  template <typename Fn> auto withinLayer(const std::string &name, Fn body) {
    int64_t saved = layer;
    layer = nextLayer++;
    auto result = within(name, body);
    layer = saved;
    return result;
  }

  //===--------------------------------------------------------------------===//
  // Families
  //===--------------------------------------------------------------------===//

  void gpt2() {
    Tensor x = within("transformer", [&] {
      Tensor ids = constant({B, S}, DType::I64);
      Tensor pos = op("arange", "arange", {}, {S}, 0, DType::I64);
      Tensor tok = op("wte", "embedding", {param({V, H}), ids}, {B, S, H},
                      tokenEmbeddingParams());
      Tensor p = op("wpe", "embedding", {param({c.maxPositions, H}), pos},
                    {1, S, H}, c.maxPositions * H);
      Tensor h = op("add", "add", {tok, p}, {B, S, H});
      h = dropout("drop", h);
      for (int64_t i = 0; i < c.layers; ++i)
        h = withinLayer("h." + std::to_string(i), [&] { return gpt2Block(h); });
      return layerNorm("ln_f", h);
    });
    lmHead(x);
  }

  Tensor gpt2Block(Tensor x) {
    Tensor h = layerNorm("ln_1", x);
    Tensor a = within("attn", [&] {
      Tensor qkv = linear("c_attn", h, H, 3 * H, true);
      Tensor q = qkv.headsView(nh, d, 3 * H);
      AttentionStyle style{AttentionStyle::Scale::DivByScalarTensor,
                           AttentionStyle::Mask::Where};
      if (transformers5())
        style = AttentionStyle{
            AttentionStyle::Scale::Mul, AttentionStyle::Mask::Add, {B, 1, S}};
      Tensor out = attention(q, q, q, style, /*cached=*/true);
      out = linear("c_proj", out, H, H, true);
      return dropout("resid_dropout", out);
    });
    x = op("add", "add", {a, x}, x.shape);
    h = layerNorm("ln_2", x);
    Tensor m = within("mlp", [&] {
      Tensor up = linear("c_fc", h, H, F, true);
      Tensor act = activation("act", up);
      Tensor down = linear("c_proj", act, F, H, true);
      return dropout("dropout", down);
    });
    return op("add_1", "add", {m, x}, x.shape);
  }

  void opt() {
    Tensor x = within("model.decoder", [&] {
      Tensor ids = constant({B, S}, DType::I64);
      Tensor tok = op("embed_tokens", "embedding", {param({V, H}), ids},
                      {B, S, H}, tokenEmbeddingParams());
      // Learned positions with an offset of 2 rows, from a cumsum over the
      // attention mask.
      Tensor positions = op("cumsum", "cumsum", {constant({B, K}, DType::I64)},
                            {B, K}, 0, DType::I64);
      Tensor p = op("embed_positions", "embedding",
                    {param({c.maxPositions + 2, H}), positions.as({B, S})},
                    {B, S, H}, (c.maxPositions + 2) * H);
      Tensor h = op("add", "add", {tok, p}, {B, S, H});
      for (int64_t i = 0; i < c.layers; ++i)
        h = withinLayer("layers." + std::to_string(i),
                        [&] { return optBlock(h); });
      return layerNorm("final_layer_norm", h);
    });
    lmHead(x);
  }

  Tensor optBlock(Tensor x) {
    Tensor h = layerNorm("self_attn_layer_norm", x);
    Tensor a = within("self_attn", [&] {
      Tensor q = linear("q_proj", h, H, H, true);
      q = pointwise("mul", "mul", {q});
      Tensor k = linear("k_proj", h, H, H, true);
      Tensor v = linear("v_proj", h, H, H, true);
      if (transformers5()) {
        q = q.headsView(nh, d, H);
        k = k.headsView(nh, d, H);
        v = v.headsView(nh, d, H);
      } else {
        // transformers 4's _shape(): view, transpose(1, 2).contiguous().
        k = op("contiguous_k", "contiguous", {k.as({B, S, nh, d})},
               {B, nh, S, d});
        v = op("contiguous_v", "contiguous", {v.as({B, S, nh, d})},
               {B, nh, S, d});
        q = op("contiguous_q", "contiguous", {q.as({B, S, nh, d})},
               {B, nh, S, d});
      }
      AttentionStyle style{AttentionStyle::Scale::None,
                           AttentionStyle::Mask::AddThenMax,
                           {B, 1, S}};
      style.maskName = "add_mask";
      if (transformers5()) {
        style.mask = AttentionStyle::Mask::Add;
        style.fp32Softmax = true;
      }
      Tensor out = attention(q, k, v, style, /*cached=*/true);
      return linear("out_proj", out, H, H, true);
    });
    a = dropout("dropout", a);
    x = op("add", "add", {x, a}, x.shape);
    h = layerNorm("final_layer_norm", x);
    Tensor up = linear("fc1", h, H, F, true);
    Tensor act = activation("activation_fn", up);
    Tensor down = linear("fc2", act, F, H, true);
    down = dropout("dropout_1", down);
    return op("add_1", "add", {x, down}, x.shape);
  }

  void bert() {
    ModelHead head = s.head;
    if (head == ModelHead::Default)
      head = ModelHead::Lm;
    Tensor x = within("bert", [&] {
      Tensor h = within("embeddings", [&] {
        Tensor ids = constant({B, S}, DType::I64);
        Tensor w = op("word_embeddings", "embedding", {param({V, H}), ids},
                      {B, S, H}, V * H);
        Tensor t =
            op("token_type_embeddings", "embedding",
               {param({c.typeVocab, H}), ids}, {B, S, H}, c.typeVocab * H);
        Tensor e = op("add", "add", {w, t}, {B, S, H});
        Tensor p =
            op("position_embeddings", "embedding",
               {param({c.maxPositions, H}), constant({1, S}, DType::I64)},
               {1, S, H}, c.maxPositions * H);
        e = op("add_1", "add", {e, p}, {B, S, H});
        e = layerNorm("LayerNorm", e);
        return dropout("dropout", e);
      });
      for (int64_t i = 0; i < c.layers; ++i)
        h = withinLayer("encoder.layer." + std::to_string(i),
                        [&] { return bertLayer(h); });
      return h;
    });
    if (head == ModelHead::None)
      return;
    if (head == ModelHead::Classifier || head == ModelHead::Pretraining) {
      Tensor first = op("getitem", "select", {x}, {B, H});
      Tensor pooled = within("bert.pooler", [&] {
        Tensor dense = linear("dense", first, H, H, true);
        return op("activation", "tanh", {dense}, dense.shape);
      });
      if (head == ModelHead::Classifier) {
        pooled = dropout("dropout", pooled);
        linear("classifier", pooled, H, 2, true);
        return;
      }
      within("cls", [&] {
        linear("seq_relationship", pooled, H, 2, true);
        return bertLmPrediction(x);
      });
      return;
    }
    within("cls", [&] { return bertLmPrediction(x); });
  }

  Tensor bertLmPrediction(Tensor x) {
    return within("predictions", [&] {
      Tensor t = within("transform", [&] {
        Tensor dense = linear("dense", x, H, H, true);
        Tensor act = op("transform_act_fn", "gelu", {dense}, dense.shape);
        return layerNorm("LayerNorm", act);
      });
      Tensor logits = linear("decoder", t, H, V, true);
      crossEntropy(logits);
      return logits;
    });
  }

  Tensor bertLayer(Tensor x) {
    Tensor a = within("attention", [&] {
      Tensor ctx = within("self", [&] {
        Tensor q = linear("query", x, H, H, true).headsView(nh, d, H);
        Tensor k = linear("key", x, H, H, true).headsView(nh, d, H);
        Tensor v = linear("value", x, H, H, true).headsView(nh, d, H);
        // A Python-float scale and the extended padding mask [B, 1, 1, S].
        AttentionStyle style{
            AttentionStyle::Scale::Div, AttentionStyle::Mask::Add, {B, 1, 1}};
        style.dropoutName = "dropout";
        style.fusedOp = "_scaled_dot_product_efficient_attention";
        return attention(q, k, v, style);
      });
      return within("output", [&] {
        Tensor dense = linear("dense", ctx, H, H, true);
        dense = dropout("dropout", dense);
        Tensor sum = op("add", "add", {dense, x}, x.shape);
        return layerNorm("LayerNorm", sum);
      });
    });
    Tensor up = within("intermediate", [&] {
      Tensor dense = linear("dense", a, H, F, true);
      return activation("intermediate_act_fn", dense);
    });
    return within("output", [&] {
      Tensor dense = linear("dense", up, F, H, true);
      dense = dropout("dropout", dense);
      Tensor sum = op("add", "add", {dense, a}, a.shape);
      return layerNorm("LayerNorm", sum);
    });
  }

  void llama() {
    Tensor x = within("model", [&] {
      Tensor ids = constant({B, S}, DType::I64);
      Tensor h = op("embed_tokens", "embedding", {param({V, H}), ids},
                    {B, S, H}, tokenEmbeddingParams());
      // Rotary tables: cos and sin of [B, S, d], once per step.
      Tensor angles = within("rotary_emb", [&] {
        Tensor freqs = op("matmul", "matmul",
                          {constant({B, d / 2, 1}, DType::F32),
                           constant({B, 1, S}, DType::F32)},
                          {B, d / 2, S}, 0, DType::F32);
        Tensor emb = op("cat", "cat", {freqs, freqs}, {B, S, d}, 0, DType::F32);
        Tensor cosine = op("cos", "cos", {emb}, emb.shape);
        op("sin", "sin", {emb}, emb.shape);
        return cosine;
      });
      (void)angles;
      for (int64_t i = 0; i < c.layers; ++i)
        h = withinLayer("layers." + std::to_string(i),
                        [&] { return llamaLayer(h); });
      return rmsNorm("norm", h);
    });
    lmHead(x);
  }

  /// apply_rotary_pos_emb on one of q, k: x * cos + rotate_half(x) * sin.
  Tensor rotary(StringRef name, Tensor x) {
    std::string n = name.str();
    Shape halfShape(x.shape.begin(), x.shape.end());
    halfShape.back() /= 2;
    // rotate_half: cat(-x[..., d/2:], x[..., :d/2]) of slices.
    Tensor half = x.lastDimSlice(halfShape.back());
    Tensor neg = op(n + ".neg", "neg", {half}, halfShape);
    Tensor rotated = op(n + ".cat", "cat", {neg, half}, x.shape);
    Tensor a =
        pointwise(n + ".mul", "mul", {x, constant({B, 1, S, d}, s.dtype)});
    Tensor b2 = pointwise(n + ".mul_1", "mul",
                          {rotated, constant({B, 1, S, d}, s.dtype)});
    return pointwise(n + ".add", "add", {a, b2});
  }

  Tensor llamaLayer(Tensor x) {
    Tensor h = rmsNorm("input_layernorm", x);
    Tensor a = within("self_attn", [&] {
      bool bias = c.projectionBias;
      Tensor q = linear("q_proj", h, H, nh * d, bias).headsView(nh, d, nh * d);
      Tensor k =
          linear("k_proj", h, H, kvh * d, bias).headsView(kvh, d, kvh * d);
      Tensor v =
          linear("v_proj", h, H, kvh * d, bias).headsView(kvh, d, kvh * d);
      q = rotary("q_rotary", q);
      k = rotary("k_rotary", k);
      AttentionStyle style{
          AttentionStyle::Scale::Mul, AttentionStyle::Mask::Add, {B, 1, S}};
      style.fp32Softmax = true;
      Tensor ctx = attention(q, k, v, style, /*cached=*/true);
      return linear("o_proj", ctx, nh * d, H, bias);
    });
    x = op("add", "add", {x, a}, x.shape);
    h = rmsNorm("post_attention_layernorm", x);
    if (c.experts > 0) {
      Tensor m = within("block_sparse_moe", [&] { return mixtralMoe(h); });
      return op("add_1", "add", {x, m}, x.shape);
    }
    Tensor m = within("mlp", [&] {
      Tensor gate = linear("gate_proj", h, H, F, false);
      Tensor act = activation("act_fn", gate);
      Tensor up = linear("up_proj", h, H, F, false);
      Tensor prod = op("mul", "mul", {act, up}, act.shape);
      return linear("down_proj", prod, F, H, false);
    });
    return op("add_1", "add", {x, m}, x.shape);
  }

  /// Tokens a Mixtral router sends to expert `e`, of the step's B x S
  /// tokens each routed to k experts: spread evenly (balanced; the first
  /// experts take one more where k x tokens do not divide), or every token
  /// to the same k experts, 0 .. k-1 (single).
  int64_t mixtralTokens(int64_t e) const {
    int64_t tokens = B * S, k = c.expertsPerToken;
    if (s.routing == ExpertRouting::Single)
      return e < k ? tokens : 0;
    int64_t routed = tokens * k;
    return routed / c.experts + (e < routed % c.experts ? 1 : 0);
  }

  /// MixtralSparseMoeBlock as eager PyTorch runs it (transformers 4.36 to
  /// 4.45): the router (the gate linear, a softmax in FP32, top-k, the k
  /// weights renormalised), a one-hot mask of the chosen experts, then per
  /// expert torch.where over its mask (nonzero: a host sync), its SiLU-gated
  /// MLP on the tokens it got (w2(act(w1 x) * w3 x)), scaled by their
  /// routing weights and added into the output with index_add_. An expert
  /// without tokens launches only the nonzero. The router's auxiliary loss
  /// is left out (MixtralConfig's output_router_logits is false).
  Tensor mixtralMoe(const Tensor &x) {
    const int64_t T = B * S, E = c.experts, k = c.expertsPerToken;
    Tensor flat = x.as({T, H});
    router = true;
    Tensor logits = linear("gate", flat, H, E, false);
    Tensor probs = op("softmax", "_softmax", {logits}, {T, E}, 0, DType::F32);
    Tensor top = op("topk", "topk", {probs}, {T, k}, 0, DType::F32);
    Tensor sum = op("sum", "sum", {top}, {T, 1}, 0, DType::F32);
    Tensor weights = op("div", "div", {top, sum}, {T, k}, 0, DType::F32);
    if (s.dtype != DType::F32)
      weights = op("to", "_to_copy", {weights}, {T, k});
    Tensor chosen{top.value, {T, k}, DType::I64};
    Tensor mask = op("one_hot", "one_hot", {chosen}, {T, k, E}, 0, DType::I64);
    router = false;
    Tensor out = op("zeros", "zeros", {}, x.shape);
    for (int64_t e = 0; e < E; ++e) {
      int64_t tokens = mixtralTokens(e);
      expert = e;
      out = within("experts." + std::to_string(e), [&] {
        Tensor where = op("where", "nonzero", {mask.as({k, T})}, {tokens, 2}, 0,
                          DType::I64);
        hostSync();
        if (tokens == 0)
          return out;
        Tensor state = op("index", "index", {flat, where}, {tokens, H});
        Tensor gate = linear("w1", state, H, F, false);
        Tensor act = activation("act_fn", gate);
        Tensor up = linear("w3", state, H, F, false);
        Tensor prod = op("mul", "mul", {act, up}, act.shape);
        Tensor down = linear("w2", prod, F, H, false);
        Tensor scale = op("index_1", "index", {weights, where}, {tokens, 1});
        Tensor scaled = op("mul_1", "mul", {down, scale}, down.shape);
        return op("index_add_", "index_add_", {out, where, scaled}, x.shape);
      });
      expert = -1;
    }
    return out;
  }

  //===--------------------------------------------------------------------===//
  // A serving engine (vLLM)
  //===--------------------------------------------------------------------===//

  /// One op of the serving step launching `kernels`, reading `args` and
  /// writing [rows, cols] of `type`: the engine's own ops have no ATen rule
  /// that could tell their sequences apart (a varlen batch is one tensor).
  Tensor served(StringRef name, StringRef opName, ArrayRef<Tensor> args,
                int64_t rows, int64_t cols, ArrayRef<KernelDesc> kernels,
                int64_t params = 0, std::optional<DType> type = std::nullopt) {
    std::vector<DeviceWork> work;
    for (KernelDesc k : kernels) {
      k.tensorCores = runsOnTensorCores(k.kind, k.dtype);
      work.push_back(k);
    }
    return emit(name, opName, args, {rows, cols}, params,
                type.value_or(activationType()), work);
  }

  /// The activations' type: BF16 for an FP8 model, whose weights and GEMMs
  /// alone are FP8.
  DType activationType() const {
    return s.dtype == DType::F8 ? DType::BF16 : s.dtype;
  }

  /// A projection of the engine (QKVParallelLinear, RowParallelLinear, ...):
  /// one GEMM over the batch's tokens with the weights [out, in]; an FP8
  /// model first quantizes its input (scaled_fp8_quant).
  Tensor servedLinear(StringRef name, const Tensor &x, int64_t in,
                      int64_t out) {
    int64_t rows = x.shape.front();
    if (s.dtype == DType::F8) {
      KernelDesc quant = elementwiseKernel(rows * in, 1, 2, activationType());
      quant.op = "scaled_fp8_quant";
      served(name.str() + ".quant", "_C::dynamic_scaled_fp8_quant", {x}, rows,
             in, {quant});
    }
    KernelDesc g;
    g.kind = KernelKind::Gemm;
    g.dtype = s.dtype;
    g.m = rows;
    g.n = out;
    g.k = in;
    g.transB = true;
    return served(name,
                  s.dtype == DType::F8 ? "_C::cutlass_scaled_mm" : "aten::mm",
                  {x, param({out, in})}, rows, out, {g}, in * out);
  }

  /// vLLM's fused RMSNorm: alone (the first layer's input), or with the
  /// residual add before it (every later norm).
  Tensor servedNorm(StringRef name, const Tensor &x, bool withResidual) {
    int64_t rows = x.shape.front();
    KernelDesc k = withResidual
                       ? elementwiseKernel(rows * H, 3, 8, activationType())
                       : elementwiseKernel(rows * H, 1, 5, activationType());
    k.op = withResidual ? "fused_add_rms_norm" : "rms_norm";
    return served(name,
                  withResidual ? "_C::fused_add_rms_norm" : "_C::rms_norm",
                  {x, param({H})}, rows, H, {k}, H);
  }

  /// vLLM's FusedMoE: the router's GEMM and its top-k, then each expert's
  /// gate-up and down GEMMs over the tokens routed to it (one grouped
  /// kernel each, the experts' weights read once), the gated activation,
  /// and the weighted sum of each token's k outputs.
  Tensor servedMoe(const Tensor &x) {
    const int64_t T = B * S, E = c.experts, k = c.expertsPerToken;
    router = true;
    Tensor logits = servedLinear("gate", x, H, E);
    KernelDesc topk = elementwiseKernel(T * E, 1, 5, DType::F32);
    topk.op = "topk_softmax";
    served("topk", "_moe_C::topk_softmax", {logits}, T, k, {topk}, 0,
           DType::F32);
    router = false;
    int64_t perExpert = 0;
    for (int64_t e = 0; e < E; ++e)
      perExpert = std::max(perExpert, mixtralTokens(e));
    auto grouped = [&](int64_t n, int64_t in) {
      KernelDesc g;
      g.kind = KernelKind::Gemm;
      g.dtype = s.dtype;
      g.batch = E;
      g.m = std::max<int64_t>(perExpert, 1);
      g.n = n;
      g.k = in;
      g.transB = true;
      return g;
    };
    Tensor up = served("experts.w13", "vllm::fused_moe", {x}, T * k, 2 * F,
                       {grouped(2 * F, H)}, E * 2 * F * H);
    KernelDesc act = elementwiseKernel(T * k * F, 2, 10, activationType());
    act.op = "silu_and_mul";
    Tensor hidden =
        served("experts.act", "_C::silu_and_mul", {up}, T * k, F, {act});
    Tensor down = served("experts.w2", "vllm::fused_moe", {hidden}, T * k, H,
                         {grouped(H, F)}, E * H * F);
    KernelDesc sum = elementwiseKernel(T * H, k, 1, activationType());
    sum.op = "moe_sum";
    return served("experts.sum", "_moe_C::moe_sum", {down}, T, H, {sum});
  }

  /// The step vLLM runs for a batch of B sequences of S new tokens each,
  /// over `context` tokens already in their caches (a prefill: none; a
  /// decode step: S = 1): every sequence's tokens side by side, one
  /// kernel per op of the torch.compile'd model (fused norms, one QKV and
  /// one gate-up GEMM, RoPE and the cache write as kernels of their own,
  /// FlashAttention over the paged cache), the LM head on each sequence's
  /// last token and the sampler's softmax over the vocabulary.
  void vllmDecoder() {
    const int64_t T = B * S, D = d;
    Tensor x = within("model", [&] {
      Tensor ids = constant({T}, DType::I64);
      Tensor h = op("embed_tokens", "embedding", {param({V, H}), ids}, {T, H},
                    V * H, activationType());
      for (int64_t i = 0; i < c.layers; ++i)
        h = withinLayer("layers." + std::to_string(i), [&] {
          Tensor n = servedNorm("input_layernorm", h, i > 0);
          Tensor a = within("self_attn", [&] {
            Tensor qkv = servedLinear("qkv_proj", n, H, (nh + 2 * kvh) * D);
            KernelDesc rope;
            rope.kind = KernelKind::Rope;
            rope.dtype = activationType();
            rope.rows = T;
            rope.heads = nh;
            rope.kvHeads = kvh != nh ? kvh : 0;
            rope.k = D;
            rope.cols = c.rotaryDim != D ? c.rotaryDim : 0;
            Tensor rotated = served("rotary_emb", "_C::rotary_embedding", {qkv},
                                    T, (nh + 2 * kvh) * D, {rope});
            KernelDesc write;
            write.kind = KernelKind::KvCacheWrite;
            write.dtype = activationType();
            write.rows = T;
            write.kvHeads = kvh;
            write.k = D;
            write.pageSize = s.kvBlockSize;
            served("kv_cache", "_C_cache_ops::reshape_and_cache_flash",
                   {rotated}, T, 2 * kvh * D, {write});
            KernelDesc attention;
            attention.kind = KernelKind::Attention;
            attention.dtype = activationType();
            attention.batch = B;
            attention.heads = nh;
            attention.kvHeads = kvh != nh ? kvh : 0;
            attention.m = S;
            attention.n = K != S ? K : 0;
            attention.k = D;
            attention.causal = true;
            attention.window = c.slidingWindow < K ? c.slidingWindow : 0;
            attention.pageSize = s.kvBlockSize;
            Tensor ctx = served("attn", "vllm::unified_attention", {rotated}, T,
                                nh * D, {attention});
            return servedLinear("o_proj", ctx, nh * D, H);
          });
          Tensor m = servedNorm("post_attention_layernorm", a, true);
          if (c.experts > 0)
            return within("block_sparse_moe", [&] { return servedMoe(m); });
          return within("mlp", [&] {
            Tensor gateUp = servedLinear("gate_up_proj", m, H, 2 * F);
            KernelDesc act = elementwiseKernel(T * F, 2, 10, activationType());
            act.op = "silu_and_mul";
            Tensor hidden =
                served("act_fn", "_C::silu_and_mul", {gateUp}, T, F, {act});
            return servedLinear("down_proj", hidden, F, H);
          });
        });
      return servedNorm("norm", h, true);
    });
    if (s.head == ModelHead::None)
      return;
    // Logits of the last token of each sequence only (LogitsProcessor), and
    // the sampler's softmax over the vocabulary in FP32.
    Tensor last = op("logits_indices", "index_select", {x}, {B, H});
    Tensor logits = servedLinear("lm_head", last, H, V);
    op("sampler", "_softmax", {logits}, {B, V}, 0, DType::F32);
  }

  //===--------------------------------------------------------------------===//
  // T5 and Switch Transformers
  //===--------------------------------------------------------------------===//

  /// Encoder and decoder over the sequence: HF's seq2seq forward given
  /// decoder_input_ids (the first token's step), then the LM head.
  void t5() {
    Tensor ids = constant({B, S}, DType::I64);
    Tensor shared = param({V, H});
    Tensor encoded = within("encoder", [&] {
      return t5Stack(shared, ids, nullptr, c.layers, c.encoderSparseStep);
    });
    Tensor decoded = within("decoder", [&] {
      return t5Stack(shared, ids, &encoded, c.decoderLayers,
                     c.decoderSparseStep);
    });
    if (c.experts > 0) {
      routerLosses("encoder", c.layers, c.encoderSparseStep);
      routerLosses("decoder", c.decoderLayers, c.decoderSparseStep);
    }
    if (s.head == ModelHead::None)
      return;
    // A tied head rescales by d_model^-0.5 first.
    if (c.tiedEmbeddings)
      decoded = pointwise("mul", "mul", {decoded});
    lmHead(decoded);
  }

  /// Whether layer `i` of a stack with sparse step `step` has a sparse MLP
  /// (SwitchTransformersStack: every step-th layer, starting at the second).
  static bool sparseLayer(int64_t i, int64_t step) {
    return step > 0 && (step == 1 || i % step == 1);
  }

  /// (1 - mask) * dtype's minimum: the additive form of a 0/1 mask.
  Tensor additiveMask(StringRef name, const Tensor &mask) {
    std::string n = name.str();
    Tensor inverted = op(n + ".rsub", "rsub", {mask}, mask.shape);
    return pointwise(n + ".mul", "mul", {inverted});
  }

  /// T5Attention.compute_bias: bucketed relative positions, [S, S] int64
  /// arithmetic, looked up in the [buckets, heads] table.
  Tensor relativePositionBias(bool bidirectional) {
    return within("relative_attention_bias", [&] {
      Shape ss{S, S};
      Tensor ctxPos = op("arange", "arange", {}, {S}, 0, DType::I64);
      Tensor memPos = op("arange_1", "arange", {}, {S}, 0, DType::I64);
      Tensor rel = op("sub", "sub", {memPos.as({1, S}), ctxPos.as({S, 1})}, ss,
                      0, DType::I64);
      auto i64 = [&](StringRef n, StringRef aten, ArrayRef<Tensor> args,
                     DType t = DType::I64) {
        return op(n, aten, args, ss, 0, t);
      };
      Tensor buckets;
      if (bidirectional) {
        Tensor positive = i64("gt", "gt", {rel}, DType::Bool);
        positive = i64("to", "_to_copy", {positive});
        positive = i64("mul", "mul", {positive});
        buckets = i64("add", "add", {positive});
        rel = i64("abs", "abs", {rel});
      } else {
        Tensor zeros = i64("zeros_like", "zeros_like", {rel});
        rel = i64("min", "minimum", {rel, zeros});
        rel = i64("neg", "neg", {rel});
      }
      Tensor small = i64("lt", "lt", {rel}, DType::Bool);
      Tensor large = i64("float", "_to_copy", {rel}, DType::F32);
      large = i64("div", "div", {large}, DType::F32);
      large = i64("log", "log", {large}, DType::F32);
      large = i64("div_1", "div", {large}, DType::F32);
      large = i64("mul_1", "mul", {large}, DType::F32);
      large = i64("to_1", "_to_copy", {large});
      large = i64("add_1", "add", {large});
      Tensor cap = i64("full_like", "full_like", {large});
      large = i64("min_1", "minimum", {large, cap});
      Tensor chosen =
          i64("where", "where", {constant(ss, DType::Bool), rel, large});
      buckets = buckets.value ? i64("add_2", "add", {buckets, chosen})
                              : i64("add_2", "add", {chosen});
      return op("embedding", "embedding",
                {param({c.relativeBuckets, nh}), buckets}, {S, S, nh},
                c.relativeBuckets * nh);
    });
  }

  /// Where an attention layer's position bias comes from: the first layer
  /// of a stack builds it (relative buckets, bidirectional in the encoder
  /// and causal in the decoder, or zeros for cross-attention) and folds the
  /// mask in; later layers reuse it.
  enum class PositionBias { Reuse, Bidirectional, Causal, Zeros };

  /// T5Attention: q from `x`, k and v from `kv` (x itself, or the encoder
  /// output), no 1/sqrt(d) scale, the position bias added to the scores,
  /// softmax in fp32.
  Tensor t5Attention(const Tensor &x, const Tensor &kv, PositionBias bias) {
    int64_t inner = nh * d;
    Tensor q = linear("q", x, H, inner, false).headsView(nh, d, inner);
    Tensor k = linear("k", kv, H, inner, false).headsView(nh, d, inner);
    Tensor v = linear("v", kv, H, inner, false).headsView(nh, d, inner);
    Shape maskShape =
        bias == PositionBias::Causal ? Shape{B, 1, S, S} : Shape{B, 1, 1, S};
    Tensor table;
    if (bias == PositionBias::Zeros)
      table = op("zeros", "zeros", {}, {1, nh, S, S});
    else if (bias != PositionBias::Reuse)
      table = relativePositionBias(bias == PositionBias::Bidirectional)
                  .as({1, nh, S, S});
    if (bias != PositionBias::Reuse)
      op("add", "add", {table, constant(maskShape, s.dtype)}, {B, nh, S, S});
    AttentionStyle style{
        AttentionStyle::Scale::None, AttentionStyle::Mask::Add, {B, nh, S}};
    style.fp32Softmax = true;
    style.explicitUpcast = true;
    style.dropoutName = "dropout";
    Tensor ctx = attention(q, k, v, style);
    return linear("o", ctx, inner, H, false);
  }

  /// fp16 T5 clamps every sublayer's output away from infinity.
  Tensor clampInf(const Tensor &x) {
    if (s.dtype != DType::F16)
      return x;
    Tensor inf = op("isinf", "isinf", {x}, x.shape, 0, DType::Bool);
    Tensor any = op("any", "any", {inf}, {}, 0, DType::Bool);
    Tensor limit = op("where", "where", {any}, {});
    return op("clamp", "clamp", {x, limit}, x.shape);
  }

  /// T5DenseActDense / T5DenseGatedActDense.
  Tensor t5DenseMlp(const Tensor &x, int64_t rows) {
    Shape in{rows, H};
    if (c.gatedMlp) {
      Tensor gate = linear("wi_0", x.as(in), H, F, false);
      gate = activation("act", gate);
      Tensor up = linear("wi_1", x.as(in), H, F, false);
      Tensor prod = op("mul", "mul", {gate, up}, gate.shape);
      prod = dropout("dropout", prod);
      return linear("wo", prod, F, H, false);
    }
    Tensor up = linear("wi", x.as(in), H, F, false);
    up = activation("act", up);
    up = dropout("dropout", up);
    return linear("wo", up, F, H, false);
  }

  /// Tokens the router sends to expert `e`: at most `expert_capacity` per
  /// sequence, spread evenly (balanced) or all to the first expert (single).
  int64_t expertTokens(int64_t e) const {
    if (s.routing == ExpertRouting::Single)
      return e == 0 ? B * std::min(c.expertCapacity, S) : 0;
    return B * std::min(c.expertCapacity, (S + c.experts - 1) / c.experts);
  }

  /// SwitchTransformersTop1Router and SwitchTransformersSparseMLP as eager
  /// PyTorch runs them: each expert gathers its tokens with a boolean mask
  /// (nonzero, a host sync, index), runs its MLP on them and scatters the
  /// result back (a second nonzero and sync, index_put_); tokens over
  /// capacity pass through unchanged. An expert without tokens launches
  /// only the mask and the two nonzero kernels.
  Tensor switchMlp(const Tensor &x) {
    Shape bse{B, S, c.experts};
    Tensor probs, mask;
    within("router", [&] {
      router = true;
      Tensor h = x;
      if (s.dtype != DType::F32)
        h = op("to", "_to_copy", {x}, x.shape, 0, DType::F32);
      if (training()) {
        Tensor noise = op("uniform", "uniform", {}, x.shape, 0, DType::F32);
        h = op("mul", "mul", {h, noise}, x.shape, 0, DType::F32);
      }
      Tensor logits = op("classifier", "linear",
                         {h, Tensor{Value(), {c.experts, H}, DType::F32}}, bse,
                         c.experts * H, DType::F32);
      probs = op("softmax", "_softmax", {logits}, bse, 0, DType::F32);
      if (s.dtype != DType::F32)
        probs = op("to_1", "_to_copy", {probs}, bse);
      Tensor index = op("argmax", "argmax", {probs}, {B, S}, 0, DType::I64);
      Tensor oneHot = op("one_hot", "one_hot", {index}, bse, 0, DType::I64);
      Tensor priority = op("cumsum", "cumsum", {oneHot}, bse, 0, DType::I64);
      Tensor inCapacity = op("le", "le", {priority}, bse, 0, DType::Bool);
      mask = op("mul", "mul", {oneHot, inCapacity}, bse, 0, DType::I64);
      probs = op("max", "max", {probs}, {B, S}, 0, probs.dtype);
      router = false;
      return probs;
    });
    op("argmax", "argmax", {mask}, {B, S}, 0, DType::I64);
    Tensor next = op("clone", "clone", {x}, x.shape);
    for (int64_t e = 0; e < c.experts; ++e) {
      int64_t chosen = expertTokens(e);
      expert = e;
      within("experts.expert_" + std::to_string(e), [&] {
        Tensor selected =
            op("bool", "_to_copy", {mask.as({B, S})}, {B, S}, 0, DType::Bool);
        Tensor where =
            op("nonzero", "nonzero", {selected}, {chosen, 2}, 0, DType::I64);
        hostSync();
        Tensor out;
        if (chosen > 0) {
          Tensor gathered = op("index", "index", {x, where}, {chosen, H});
          out = t5DenseMlp(gathered, chosen);
        }
        where =
            op("nonzero_1", "nonzero", {selected}, {chosen, 2}, 0, DType::I64);
        hostSync();
        if (chosen > 0)
          next = op("index_put_", "index_put_", {next, where, out}, x.shape);
        return next;
      });
      expert = -1;
    }
    return op("mul", "mul", {probs.as({B, S, 1}), next}, x.shape);
  }

  /// One T5 block: self-attention, cross-attention (decoder), MLP, each a
  /// pre-norm residual sublayer.
  Tensor t5Block(Tensor x, const Tensor *encoded, bool first, bool sparse) {
    bool decoder = encoded != nullptr;
    Tensor a = within("layer.0", [&] {
      Tensor n = rmsNorm("layer_norm", x);
      Tensor out = within("SelfAttention", [&] {
        PositionBias bias = !first    ? PositionBias::Reuse
                            : decoder ? PositionBias::Causal
                                      : PositionBias::Bidirectional;
        return t5Attention(n, n, bias);
      });
      return dropout("dropout", out);
    });
    x = clampInf(op("add", "add", {x, a}, x.shape));
    if (decoder) {
      Tensor cross = within("layer.1", [&] {
        Tensor n = rmsNorm("layer_norm", x);
        Tensor out = within("EncDecAttention", [&] {
          return t5Attention(n, *encoded,
                             first ? PositionBias::Zeros : PositionBias::Reuse);
        });
        return dropout("dropout", out);
      });
      x = clampInf(op("add_1", "add", {x, cross}, x.shape));
    }
    std::string ff = decoder ? "layer.2" : "layer.1";
    Tensor m = within(ff, [&] {
      Tensor n = rmsNorm("layer_norm", x);
      Tensor out = within("mlp", [&] {
        return sparse ? switchMlp(n) : t5DenseMlp(n, B * S).as(x.shape);
      });
      return dropout("dropout", out);
    });
    x = clampInf(op("add_2", "add", {x, m}, x.shape));
    // A dense Switch block returns a placeholder router tuple.
    if (c.experts > 0 && !sparse)
      op("router_placeholder", "zeros", {}, {1}, 0, DType::I64);
    return x;
  }

  /// A T5 stack: embedding, masks, blocks, final norm. `encoded` is the
  /// encoder output for the decoder stack, null for the encoder.
  Tensor t5Stack(const Tensor &table, const Tensor &ids, const Tensor *encoded,
                 int64_t layers, int64_t sparseStep) {
    bool decoder = encoded != nullptr;
    Tensor h = op("embed_tokens", "embedding", {table, ids}, {B, S, H},
                  decoder ? 0 : tokenEmbeddingParams());
    h = dropout("dropout", h);
    if (!decoder) {
      Tensor ones = op("ones", "ones", {}, {B, S});
      additiveMask("extended_attention_mask", ones.as({B, 1, 1, S}));
    } else {
      // Causal mask times the decoder attention mask, then additive; the
      // encoder mask for cross-attention.
      Tensor seqIds = op("arange", "arange", {}, {S}, 0, DType::I64);
      Tensor causal =
          op("repeat", "repeat", {seqIds}, {B, S, S}, 0, DType::I64);
      causal = op("le", "le", {causal}, {B, S, S}, 0, DType::Bool);
      causal = op("to", "_to_copy", {causal}, {B, S, S}, 0, DType::I64);
      causal = op("mul", "mul", {causal.as({B, 1, S, S})}, {B, 1, S, S}, 0,
                  DType::I64);
      causal = op("to_1", "_to_copy", {causal}, {B, 1, S, S});
      additiveMask("extended_attention_mask", causal);
      Tensor ones = op("ones", "ones", {}, {B, S}, 0, DType::I64);
      Tensor crossMask =
          op("to_2", "_to_copy", {ones.as({B, 1, 1, S})}, {B, 1, 1, S});
      additiveMask("encoder_extended_attention_mask", crossMask);
    }
    for (int64_t i = 0; i < layers; ++i)
      h = withinLayer("block." + std::to_string(i), [&] {
        return t5Block(h, encoded, i == 0, sparseLayer(i, sparseStep));
      });
    h = rmsNorm("final_layer_norm", h);
    return dropout("dropout_1", h);
  }

  /// Router z-loss and load-balancing loss over the stack's sparse layers,
  /// which SwitchTransformersForConditionalGeneration computes in every
  /// forward (small [B, layers * S, experts] tensors).
  void routerLosses(StringRef stack, int64_t layers, int64_t step) {
    int64_t sparse = 0;
    for (int64_t i = 0; i < layers; ++i)
      sparse += sparseLayer(i, step);
    if (sparse == 0)
      return;
    within((stack + "_router_loss").str(), [&] {
      Shape logitsShape{B, sparse * S, c.experts};
      Tensor logits = op("cat", "cat", {constant(logitsShape, DType::F32)},
                         logitsShape, 0, DType::F32);
      Tensor index = op("cat_1", "cat", {constant({B, sparse * S}, DType::I64)},
                        {B, sparse * S}, 0, DType::I64);
      // z-loss: mean of logsumexp squared.
      Tensor lse = op("logsumexp", "logsumexp", {logits}, {B, sparse * S}, 0,
                      DType::F32);
      lse = op("pow", "pow", {lse}, lse.shape, 0, DType::F32);
      op("sum", "sum", {lse}, {}, 0, DType::F32);
      // Load balancing: fraction of tokens and of probability per expert.
      Tensor probs =
          op("softmax", "_softmax", {logits}, logitsShape, 0, DType::F32);
      Tensor oneHot =
          op("one_hot", "one_hot", {index}, logitsShape, 0, DType::I64);
      Tensor routed =
          op("to", "_to_copy", {oneHot}, logitsShape, 0, DType::F32);
      Tensor tokens =
          op("mean", "mean", {routed}, {B, c.experts}, 0, DType::F32);
      Tensor prob =
          op("mean_1", "mean", {probs}, {B, c.experts}, 0, DType::F32);
      Tensor prod =
          op("mul", "mul", {tokens, prob}, {B, c.experts}, 0, DType::F32);
      Tensor mean = op("mean_2", "mean", {prod}, {}, 0, DType::F32);
      op("mul_1", "mul", {mean}, {}, 0, DType::F32);
      return mean;
    });
  }

  /// The LM head: a bias-free linear to the vocabulary.
  void lmHead(Tensor x) {
    if (s.head == ModelHead::None)
      return;
    crossEntropy(op("lm_head", "linear", {x, param({V, H})}, {B, S, V}, V * H));
  }

  /// --loss=cross-entropy: HF's causal-LM loss (ForCausalLMLoss): the
  /// labels are shifted by one token and padded, and every position's
  /// logits go through log_softmax over the vocabulary and nll_loss (the
  /// mean of one log-probability per token).
  void crossEntropy(const Tensor &logits) {
    if (s.loss != LossKind::CrossEntropy)
      return;
    int64_t rows = 1;
    for (int64_t dim : ArrayRef<int64_t>(logits.shape).drop_back())
      rows *= dim;
    int64_t vocab = logits.shape.back();
    within("loss", [&] {
      Tensor logp =
          op("log_softmax", "_log_softmax", {logits.as({rows, vocab})},
             {rows, vocab}, 0, DType::F32);
      return op("nll_loss", "nll_loss_forward",
                {logp, constant({rows}, DType::I64)}, {}, 0, DType::F32);
    });
  }

  /// Parameters of the token embedding: none of its own when the LM head
  /// shares its table (the head's weight gradient is the table's, and the
  /// optimizer updates it once).
  int64_t tokenEmbeddingParams() const {
    bool tied = c.tiedEmbeddings && s.head != ModelHead::None;
    return tied ? 0 : V * H;
  }
};

} // namespace

OwningOpRef<ModuleOp> perf::importModelConfig(MLIRContext *ctx,
                                              llvm::StringRef text,
                                              llvm::StringRef path,
                                              const StepOptions &options) {
  ctx->loadDialect<PerfDialect>();
  Location loc = FileLineColLoc::get(ctx, path, 1, 1);
  llvm::Expected<TransformerConfig> config = parseModelConfig(text, path);
  if (!config) {
    emitError(loc) << llvm::toString(config.takeError());
    return nullptr;
  }
  if (llvm::Error e = checkStepOptions(*config, options)) {
    emitError(loc) << path << ": " << llvm::toString(std::move(e));
    return nullptr;
  }
  StepBuilder builder(ctx, loc, *config, options);
  OwningOpRef<ModuleOp> module = builder.build("step");
  if (!module)
    return nullptr;
  module->getOperation()->setAttr(kModelConfigAttr, StringAttr::get(ctx, path));
  if (options.phase == StepPhase::Decode)
    module->walk([&](GraphOp graph) { graph.setPhase("decode"); });
  if (options.phase == StepPhase::Training) {
    PassManager pm(ctx);
    SynthesizeTrainingOptions training;
    training.optimizer = options.optimizer;
    training.masterWeights = options.masterWeights;
    pm.addNestedPass<GraphOp>(createSynthesizeTraining(training));
    if (failed(pm.run(*module)))
      return nullptr;
  }
  return module;
}

void perf::registerModelConfigImportTranslation() {
  static llvm::cl::OptionCategory category("--import-model-config options");
  static llvm::cl::opt<int64_t> batch(
      "batch", llvm::cl::desc("Batch size of the step (model config import)"),
      llvm::cl::init(1), llvm::cl::cat(category));
  static llvm::cl::opt<int64_t> seq(
      "seq", llvm::cl::desc("Sequence length (model config import)"),
      llvm::cl::init(0), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> phase(
      "phase",
      llvm::cl::desc("inference, training or decode (model config import)"),
      llvm::cl::init("inference"), llvm::cl::cat(category));
  static llvm::cl::opt<int64_t> context(
      "context",
      llvm::cl::desc("Tokens already in the KV cache of a decode step (model "
                     "config import)"),
      llvm::cl::init(0), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> dtype(
      "dtype",
      llvm::cl::desc("fp32, fp16 or bf16, or fp8 with --engine=vllm (model "
                     "config import)"),
      llvm::cl::init("fp32"), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> attention(
      "attention",
      llvm::cl::desc("eager, sdpa or flash attention (model config import)"),
      llvm::cl::init("eager"), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> head(
      "head",
      llvm::cl::desc("default, lm, classifier, pretraining or none (model "
                     "config import)"),
      llvm::cl::init("default"), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> optimizer(
      "optimizer",
      llvm::cl::desc("none, sgd or adam for training steps (model config "
                     "import)"),
      llvm::cl::init("none"), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> routing(
      "expert-routing",
      llvm::cl::desc("balanced or single: how a Switch router spreads tokens "
                     "over its experts (model config import)"),
      llvm::cl::init("balanced"), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> loss(
      "loss",
      llvm::cl::desc("none or cross-entropy: the causal-LM loss after the LM "
                     "head (model config import)"),
      llvm::cl::init("none"), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> kvCache(
      "kv-cache",
      llvm::cl::desc("none, copy or cropped: whether a prefill or training "
                     "step copies its keys and values into a KV cache "
                     "(transformers 5's DynamicCache); cropped: a decode "
                     "step's cache was cut back to its context, so its "
                     "past is read strided (model config import)"),
      llvm::cl::init("none"), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> engine(
      "engine",
      llvm::cl::desc("hf or vllm: the step PyTorch eager runs with "
                     "HuggingFace transformers' modules, or a serving "
                     "engine's fused kernels (decoders with RoPE; model "
                     "config import)"),
      llvm::cl::init("hf"), llvm::cl::cat(category));
  static llvm::cl::opt<int64_t> kvBlockSize(
      "kv-block-size",
      llvm::cl::desc("Tokens per page of the serving engine's KV cache "
                     "(--engine=vllm; default 16)"),
      llvm::cl::init(16), llvm::cl::cat(category));
  static llvm::cl::opt<bool> masterWeights(
      "master-weights",
      llvm::cl::desc("Mixed-precision training with FP32 master weights "
                     "(Megatron-LM, DeepSpeed, apex O2): FP32 gradients and an "
                     "FP32 copy updated by the optimizer (model config import, "
                     "--dtype=fp16 or bf16)"),
      llvm::cl::init(false), llvm::cl::cat(category));
  registerImportTranslation(
      "import-model-config",
      "Build a transformer step from a HuggingFace config.json",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         MLIRContext *ctx) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        StringRef path = buffer->getBufferIdentifier();
        StepFlags flags;
        flags.batch = batch;
        flags.seq = seq;
        flags.context = context;
        flags.phase = phase;
        flags.dtype = dtype;
        flags.attention = attention;
        flags.head = head;
        flags.optimizer = optimizer;
        flags.routing = routing;
        flags.loss = loss;
        flags.kvCache = kvCache;
        flags.masterWeights = masterWeights;
        flags.engine = engine;
        flags.kvBlockSize = kvBlockSize;
        llvm::Expected<StepOptions> options = parseStepOptions(flags);
        if (!options) {
          emitError(FileLineColLoc::get(ctx, path, 1, 1))
              << llvm::toString(options.takeError());
          return nullptr;
        }
        OwningOpRef<ModuleOp> module =
            importModelConfig(ctx, buffer->getBuffer(), path, *options);
        if (!module)
          return nullptr;
        return OwningOpRef<Operation *>(module.release());
      });
}
