//===- ModelConfig.cpp - Read a HuggingFace config.json -------------------===//
//
// Each figure has the key spellings the families use (GPT-2's n_embd, BERT's
// hidden_size, T5's d_model); the first present wins.
//
//===----------------------------------------------------------------------===//

#include "perf/Import/ModelConfig.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Limits.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"
#include <optional>

using namespace perf;
using llvm::StringRef;

namespace {
llvm::Error configError(StringRef path, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 (path + ": " + message).str());
}

/// The first of `keys` present as an integer; an error naming them all when
/// none is (or when one is present but not a positive integer).
llvm::Expected<std::optional<int64_t>>
integer(const llvm::json::Object &o, StringRef path,
        std::initializer_list<StringRef> keys, bool required) {
  for (StringRef key : keys) {
    const llvm::json::Value *v = o.get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      continue;
    std::optional<int64_t> i = v->getAsInteger();
    if (!i || *i <= 0)
      return configError(path, "key '" + key + "' must be a positive integer");
    if (!withinLimit(*i, kMaxExtent))
      return configError(path,
                         limitExceeded("key '" + key + "'", *i, kMaxExtent));
    return i;
  }
  if (!required)
    return std::nullopt;
  std::string names;
  for (StringRef key : keys)
    names += (names.empty() ? "'" : " or '") + key.str() + "'";
  return configError(path, "missing key " + names);
}
} // namespace

llvm::Expected<TransformerConfig> perf::parseModelConfig(StringRef text,
                                                         StringRef path) {
  llvm::Expected<llvm::json::Value> parsed = parseJsonInput(text, path);
  if (!parsed)
    return parsed.takeError();
  const llvm::json::Object *o = parsed->getAsObject();
  if (!o)
    return configError(path, "a model config must be a JSON object");

  TransformerConfig c;
  std::optional<StringRef> type = o->getString("model_type");
  if (!type)
    return configError(path, "missing key 'model_type'");
  c.modelType = type->str();
  std::optional<ModelFamily> family =
      llvm::StringSwitch<std::optional<ModelFamily>>(*type)
          .Case("gpt2", ModelFamily::Gpt2)
          .Case("opt", ModelFamily::Opt)
          .Case("bert", ModelFamily::Bert)
          .Cases({"llama", "mistral", "qwen2", "mixtral"}, ModelFamily::Llama)
          .Cases({"t5", "switch_transformers"}, ModelFamily::T5)
          .Default(std::nullopt);
  if (!family)
    return configError(path, "unsupported model_type '" + *type +
                                 "' (supported: gpt2, opt, bert, llama, "
                                 "mistral, qwen2, mixtral, t5, "
                                 "switch_transformers)");
  c.family = *family;

  auto need = [&](std::initializer_list<StringRef> keys,
                  int64_t &out) -> llvm::Error {
    llvm::Expected<std::optional<int64_t>> v = integer(*o, path, keys, true);
    if (!v)
      return v.takeError();
    out = **v;
    return llvm::Error::success();
  };
  auto optional = [&](std::initializer_list<StringRef> keys, int64_t &out,
                      int64_t dflt) -> llvm::Error {
    llvm::Expected<std::optional<int64_t>> v = integer(*o, path, keys, false);
    if (!v)
      return v.takeError();
    out = v->value_or(dflt);
    return llvm::Error::success();
  };
  if (llvm::Error e =
          need({"n_layer", "num_hidden_layers", "num_layers"}, c.layers))
    return std::move(e);
  if (llvm::Error e = need({"n_embd", "hidden_size", "d_model"}, c.hidden))
    return std::move(e);
  if (llvm::Error e =
          need({"n_head", "num_attention_heads", "num_heads"}, c.heads))
    return std::move(e);
  if (llvm::Error e = need({"vocab_size"}, c.vocab))
    return std::move(e);
  if (llvm::Error e = optional({"num_key_value_heads"}, c.kvHeads, c.heads))
    return std::move(e);
  // GPT-2 leaves n_inner null for 4 x n_embd.
  if (llvm::Error e =
          optional({"n_inner", "intermediate_size", "ffn_dim", "d_ff"}, c.ffn,
                   4 * c.hidden))
    return std::move(e);
  if (c.family == ModelFamily::Llama && !o->get("intermediate_size"))
    return configError(path, "missing key 'intermediate_size'");
  if (llvm::Error e = optional({"n_positions", "max_position_embeddings"},
                               c.maxPositions, 0))
    return std::move(e);
  bool relativePositions =
      c.family == ModelFamily::Llama || c.family == ModelFamily::T5;
  if (c.maxPositions == 0 && !relativePositions)
    return configError(
        path, "missing key 'n_positions' or 'max_position_embeddings'");
  if (llvm::Error e = optional({"type_vocab_size"}, c.typeVocab,
                               c.family == ModelFamily::Bert ? 2 : 0))
    return std::move(e);
  if (llvm::Error e = optional({"d_kv", "head_dim"}, c.headDimension, 0))
    return std::move(e);
  if (c.headDimension == 0 && c.hidden % c.heads != 0)
    return configError(path, "hidden size " + llvm::Twine(c.hidden) +
                                 " is not a multiple of the " +
                                 llvm::Twine(c.heads) + " heads");
  if (c.headDimension == 0)
    c.headDimension = c.hidden / c.heads;
  if (c.family == ModelFamily::T5) {
    if (llvm::Error e =
            optional({"num_decoder_layers"}, c.decoderLayers, c.layers))
      return std::move(e);
    if (llvm::Error e =
            optional({"relative_attention_num_buckets"}, c.relativeBuckets, 32))
      return std::move(e);
    // SwitchTransformersConfig's defaults; T5 has no experts.
    bool switchModel = *type == "switch_transformers";
    if (llvm::Error e =
            optional({"num_experts"}, c.experts, switchModel ? 8 : 0))
      return std::move(e);
    if (llvm::Error e = optional({"expert_capacity"}, c.expertCapacity, 64))
      return std::move(e);
    if (llvm::Error e = optional({"encoder_sparse_step"}, c.encoderSparseStep,
                                 switchModel ? 3 : 0))
      return std::move(e);
    if (llvm::Error e = optional({"decoder_sparse_step"}, c.decoderSparseStep,
                                 switchModel ? 3 : 0))
      return std::move(e);
    if (!switchModel)
      c.experts = c.encoderSparseStep = c.decoderSparseStep = 0;
  }
  if (*type == "mixtral") {
    // MixtralConfig's defaults: 8 experts, two per token, in every layer.
    if (llvm::Error e = optional({"num_local_experts"}, c.experts, 8))
      return std::move(e);
    if (llvm::Error e = optional({"num_experts_per_tok"}, c.expertsPerToken, 2))
      return std::move(e);
    if (c.expertsPerToken > c.experts)
      return configError(
          path, "num_experts_per_tok " + llvm::Twine(c.expertsPerToken) +
                    " is more than the " + llvm::Twine(c.experts) +
                    " experts (num_local_experts)");
  }
  if (c.family == ModelFamily::Llama) {
    // Mistral's window; Qwen2 states one but applies it only with
    // use_sliding_window.
    if (llvm::Error e = optional({"sliding_window"}, c.slidingWindow, 0))
      return std::move(e);
    if (!o->getBoolean("use_sliding_window").value_or(true))
      c.slidingWindow = 0;
  }
  c.rotaryDim = c.headDimension;
  if (std::optional<double> factor = o->getNumber("partial_rotary_factor")) {
    if (!(*factor > 0 && *factor <= 1))
      return configError(path, "key 'partial_rotary_factor' must be a number "
                               "in (0, 1]");
    c.rotaryDim = std::max<int64_t>(
        2, int64_t(*factor * double(c.headDimension)) / 2 * 2);
  }
  if (c.heads % c.kvHeads != 0)
    return configError(path, "num_key_value_heads " + llvm::Twine(c.kvHeads) +
                                 " must divide the " + llvm::Twine(c.heads) +
                                 " attention heads");

  std::optional<StringRef> act = o->getString("activation_function");
  if (!act)
    act = o->getString("hidden_act");
  if (!act)
    act = o->getString("dense_act_fn");
  if (std::optional<StringRef> proj = o->getString("feed_forward_proj");
      proj && c.family == ModelFamily::T5) {
    // T5's "relu" or "gated-gelu"; T5Config maps gated-gelu to gelu_new.
    c.gatedMlp = proj->consume_front("gated-");
    if (!act)
      act = c.gatedMlp && *proj == "gelu" ? StringRef("gelu_new") : *proj;
  }
  StringRef defaultAct = c.family == ModelFamily::Gpt2   ? "gelu_new"
                         : c.family == ModelFamily::Opt  ? "relu"
                         : c.family == ModelFamily::Bert ? "gelu"
                         : c.family == ModelFamily::T5   ? "relu"
                                                         : "silu";
  c.activation = act.value_or(defaultAct).str();
  if (!llvm::is_contained({StringRef("gelu_new"), StringRef("gelu"),
                           StringRef("relu"), StringRef("silu"),
                           StringRef("gelu_pytorch_tanh")},
                          StringRef(c.activation)))
    return configError(path, "unsupported activation '" + c.activation + "'");
  c.tiedEmbeddings = o->getBoolean("tie_word_embeddings").value_or(true);
  c.projectionBias = c.family != ModelFamily::Llama ||
                     o->getBoolean("attention_bias").value_or(false);
  return c;
}

llvm::Error perf::checkStepOptions(const TransformerConfig &c,
                                   const StepOptions &s) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   message.str());
  };
  if (s.batch <= 0)
    return error("--batch must be positive, got " + llvm::Twine(s.batch));
  if (s.seq <= 0)
    return error("--seq must be positive, got " + llvm::Twine(s.seq));
  bool decode = s.phase == StepPhase::Decode;
  if (decode && s.context <= 0)
    return error("--phase=decode needs --context=N > 0, the tokens already "
                 "in the KV cache");
  if (!decode && s.context != 0)
    return error("--context needs --phase=decode");
  if (decode && c.family != ModelFamily::Gpt2 && c.family != ModelFamily::Opt &&
      c.family != ModelFamily::Llama)
    return error("--phase=decode needs a decoder-only model (gpt2, opt, "
                 "llama, mistral, qwen2, mixtral), not '" +
                 c.modelType + "'");
  if (c.maxPositions > 0 && s.seq + s.context > c.maxPositions &&
      c.family != ModelFamily::Llama)
    return error((decode ? "--context + --seq " : "--seq ") +
                 llvm::Twine(s.seq + s.context) + " is longer than the " +
                 llvm::Twine(c.maxPositions) +
                 " positions the model's position table holds");
  if (s.optimizer != "none" && s.optimizer != "sgd" && s.optimizer != "adam")
    return error("--optimizer must be none, sgd or adam, got '" + s.optimizer +
                 "'");
  if (s.optimizer != "none" && s.phase != StepPhase::Training)
    return error("--optimizer needs --phase=training");
  if (c.family != ModelFamily::Bert &&
      (s.head == ModelHead::Classifier || s.head == ModelHead::Pretraining))
    return error("--head=classifier and --head=pretraining are BERT heads");
  if (s.engine == StepEngine::Vllm) {
    if (c.family != ModelFamily::Llama)
      return error("--engine=vllm builds decoders with RoPE and RMSNorm "
                   "(llama, mistral, qwen2, mixtral), not '" +
                   c.modelType + "'");
    if (s.phase == StepPhase::Training)
      return error("--engine=vllm serves: --phase must be inference "
                   "(prefill) or decode");
    if (s.dtype == DType::F32)
      return error("--engine=vllm runs fp16, bf16 or fp8, not fp32");
  }
  if (c.family == ModelFamily::T5 && s.attention == AttentionImpl::Fused)
    return error("--attention=sdpa|flash: T5 and Switch Transformers attention "
                 "adds a relative "
                 "position bias and has no fused kernel; use eager");
  // The build is linear in the blocks: a config past the limits is refused
  // here, from lower bounds, rather than after building most of it. Every
  // block has a two-matrix MLP (per expert in a sparse one) and at least
  // ten ops; doubles, since the factors are up to max-extent each.
  double layers = double(c.layers) + double(c.decoderLayers);
  double sparse = 0;
  if (c.experts > 0 && c.family == ModelFamily::Llama)
    sparse = double(c.layers);
  else if (c.experts > 0) {
    if (c.encoderSparseStep > 0)
      sparse += double(c.layers / c.encoderSparseStep);
    if (c.decoderSparseStep > 0)
      sparse += double(c.decoderLayers / c.decoderSparseStep);
  }
  double mlp = 2.0 * double(c.hidden) * double(c.ffn);
  double params = (layers - sparse) * mlp + sparse * double(c.experts) * mlp +
                  double(c.vocab) * double(c.hidden);
  auto saturated = [](double v) {
    return v >= 0x1p62 ? int64_t(1) << 62 : int64_t(v);
  };
  if (params > double(kMaxExtent.max))
    return error(limitExceeded("the model's parameter count (a lower bound)",
                               saturated(params), kMaxExtent));
  // Every step holds the hidden states of all its tokens, one kernel's
  // elements (a residual add's, a layer norm's).
  double activations = double(s.batch) * double(s.seq) * double(c.hidden);
  if (activations > double(kMaxExtent.max))
    return error(limitExceeded("--batch x --seq x hidden_size, the elements "
                               "of the step's hidden states",
                               saturated(activations), kMaxExtent));
  double ops = 10 * layers + 2 * sparse * double(c.experts);
  if (ops > double(kMaxGraphOps.max))
    return error(limitExceeded("the step's op count (a lower bound)",
                               saturated(ops), kMaxGraphOps));
  return llvm::Error::success();
}

llvm::Expected<StepOptions> perf::parseStepOptions(const StepFlags &f) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   message.str());
  };
  StepOptions s;
  s.batch = f.batch;
  s.seq = f.seq;
  s.context = f.context;
  if (f.phase == "training")
    s.phase = StepPhase::Training;
  else if (f.phase == "decode")
    s.phase = StepPhase::Decode;
  else if (f.phase != "inference")
    return error("--phase must be inference, training or decode, got '" +
                 f.phase + "'");
  // A decode step generates one token unless told otherwise.
  if (s.phase == StepPhase::Decode && f.seq == 0)
    s.seq = 1;
  if (f.engine == "vllm")
    s.engine = StepEngine::Vllm;
  else if (f.engine != "hf")
    return error("--engine must be hf or vllm, got '" + f.engine + "'");
  std::optional<DType> type = parseDType(f.dtype);
  bool fp8 = type == DType::F8 && s.engine == StepEngine::Vllm;
  if (!type || (*type != DType::F32 && *type != DType::F16 &&
                *type != DType::BF16 && !fp8))
    return error("--dtype must be fp32, fp16 or bf16 (or fp8 with "
                 "--engine=vllm: FP8 weights and GEMMs, BF16 activations), "
                 "got '" +
                 f.dtype + "'");
  s.dtype = *type;
  if (f.kvBlockSize <= 0)
    return error("--kv-block-size must be positive, got " +
                 llvm::Twine(f.kvBlockSize));
  s.kvBlockSize = f.kvBlockSize;
  if (f.attention == "sdpa" || f.attention == "flash")
    s.attention = AttentionImpl::Fused;
  else if (f.attention != "eager")
    return error("--attention must be eager, sdpa or flash, got '" +
                 f.attention + "'");
  if (f.kvCache == "copy")
    s.kvCache = KvCache::Copy;
  else if (f.kvCache == "cropped")
    s.kvCache = KvCache::Cropped;
  else if (f.kvCache != "none")
    return error("--kv-cache must be none, copy or cropped, got '" + f.kvCache +
                 "'");
  if (f.routing == "single")
    s.routing = ExpertRouting::Single;
  else if (f.routing != "balanced")
    return error("--expert-routing must be balanced or single, got '" +
                 f.routing + "'");
  std::optional<ModelHead> head =
      llvm::StringSwitch<std::optional<ModelHead>>(f.head)
          .Case("default", ModelHead::Default)
          .Case("lm", ModelHead::Lm)
          .Case("classifier", ModelHead::Classifier)
          .Case("pretraining", ModelHead::Pretraining)
          .Case("none", ModelHead::None)
          .Default(std::nullopt);
  if (!head)
    return error("--head must be default, lm, classifier, pretraining or "
                 "none, got '" +
                 f.head + "'");
  s.head = *head;
  if (f.loss == "cross-entropy")
    s.loss = LossKind::CrossEntropy;
  else if (f.loss != "none")
    return error("--loss must be none or cross-entropy, got '" + f.loss + "'");
  s.optimizer = f.optimizer;
  if (f.masterWeights && s.phase != StepPhase::Training)
    return error("--master-weights needs --phase=training");
  if (f.masterWeights && s.dtype == DType::F32)
    return error("--master-weights needs --dtype=fp16 or bf16: FP32 weights "
                 "are their own master copy");
  s.masterWeights = f.masterWeights;
  return s;
}
