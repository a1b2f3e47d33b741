//===- ModelConfig.h - Transformer step from a model config -----*- C++ -*-===//
//
// A HuggingFace `config.json` read into the figures that decide a step's
// kernels, and the options of the step (batch, sequence, phase, dtype,
// attention kernel, head). MLIR-free; the graph is built by
// `--import-model-config` (ModelConfigToPerf.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef PERF_IMPORT_MODELCONFIG_H
#define PERF_IMPORT_MODELCONFIG_H

#include "perf/Support/DType.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>

namespace perf {

/// The transformer families whose eager PyTorch kernels the importer knows.
enum class ModelFamily {
  Gpt2,
  Opt,
  Bert,
  Llama,
  /// Encoder-decoder T5 and its mixture-of-experts variant, Switch
  /// Transformers (relative position bias, RMS layer norm, no biases).
  T5
};

struct TransformerConfig {
  std::string modelType;
  ModelFamily family = ModelFamily::Gpt2;
  int64_t layers = 0, hidden = 0, heads = 0, kvHeads = 0, ffn = 0, vocab = 0;
  int64_t maxPositions = 0;
  /// BERT's token types (segment embeddings); 0 when absent.
  int64_t typeVocab = 0;
  /// "gelu_new", "gelu", "relu", "silu", ...
  std::string activation;
  bool tiedEmbeddings = true;
  /// Attention and MLP projections carry a bias (Llama's do not).
  bool projectionBias = true;
  /// Width of one attention head: T5's d_kv (its heads need not split the
  /// hidden size), else hidden / heads.
  int64_t headDimension = 0;
  /// Layers of the decoder stack of an encoder-decoder model (T5).
  int64_t decoderLayers = 0;
  /// T5's relative position buckets (a [buckets, heads] bias table).
  int64_t relativeBuckets = 0;
  /// The MLP multiplies an activated projection by a second one
  /// (T5 v1.1's gated-gelu).
  bool gatedMlp = false;
  /// Mixture of experts: experts of a sparse MLP (Switch Transformers,
  /// Mixtral), the tokens each takes per sequence (Switch), and every how
  /// many layers of the encoder and decoder the MLP is sparse (Switch; 0:
  /// never; every Mixtral layer is sparse).
  int64_t experts = 0, expertCapacity = 0;
  int64_t encoderSparseStep = 0, decoderSparseStep = 0;
  /// Experts each token is routed to (Mixtral's top-k; Switch's is 1).
  int64_t expertsPerToken = 1;
  /// The keys each query attends to at most (Mistral's sliding_window; 0:
  /// all of them).
  int64_t slidingWindow = 0;
  /// The dimensions of each query and key head RoPE rotates
  /// (partial_rotary_factor x head size; the whole head unless said).
  int64_t rotaryDim = 0;

  int64_t headDim() const { return headDimension; }
};

/// Reads `text` (the contents of `path`) as a HuggingFace config. Errors
/// name the file and the missing or bad key.
llvm::Expected<TransformerConfig> parseModelConfig(llvm::StringRef text,
                                                   llvm::StringRef path);

/// A forward over the sequence, a training step, or one decode step that
/// extends a KV cache.
enum class StepPhase { Inference, Training, Decode };
/// eager: matmul, scale, mask, softmax, matmul as separate kernels (HF's
/// eager attention); sdpa/flash: one fused attention kernel.
enum class AttentionImpl { Eager, Fused };
/// Who runs the step: PyTorch eager with HuggingFace transformers' modules
/// (what the measured steps ran), or a serving engine's fused kernels as
/// vLLM runs a decoder (RMSNorm with the residual add, one QKV and one
/// gate-up projection, RoPE and the KV-cache write as kernels of their own,
/// FlashAttention-3 over a paged cache, the LM head on the last token of
/// each sequence).
enum class StepEngine { HuggingFace, Vllm };
/// What follows the last layer: the LM head, a sequence classifier (pooler
/// and a 2-way linear), BERT's pre-training heads, or nothing.
enum class ModelHead { Default, Lm, Classifier, Pretraining, None };

/// What the step computes from the LM head's logits: nothing (the logits
/// are the output, the backward is seeded with their gradient), or the
/// causal-LM cross-entropy loss against the next token.
enum class LossKind { None, CrossEntropy };

/// How a Switch router spreads tokens over its experts: evenly (what a
/// trained router does on real text), or every token to one expert (what
/// it does when every token is the same, as in steps timed with constant
/// input ids, or when the router has collapsed).
enum class ExpertRouting { Balanced, Single };

/// What a prefill or training step of a decoder does with its keys and
/// values: keeps them as they are (transformers 4's tuples, and the
/// NeuSight labels' steps), or copies them into a cache (transformers 5's
/// DynamicCache appends each layer's to an empty tensor with torch.cat).
/// A decode step always copies (the cache grows by the step's tokens).
/// Cropped is Copy where a decode step's cache was cut back to its context
/// (DynamicCache.crop, as a benchmark that times one decode step again and
/// again does): the cached keys and values are then a slice of a longer
/// tensor, and torch.cat reads them strided.
enum class KvCache { None, Copy, Cropped };

struct StepOptions {
  int64_t batch = 1, seq = 0;
  StepPhase phase = StepPhase::Inference;
  /// Tokens already in the KV cache (decode): the step's `seq` new tokens
  /// attend to `context + seq` keys.
  int64_t context = 0;
  DType dtype = DType::F32;
  AttentionImpl attention = AttentionImpl::Eager;
  ModelHead head = ModelHead::Default;
  ExpertRouting routing = ExpertRouting::Balanced;
  LossKind loss = LossKind::None;
  KvCache kvCache = KvCache::None;
  StepEngine engine = StepEngine::HuggingFace;
  /// The serving engine's KV-cache page, tokens.
  int64_t kvBlockSize = 16;
  /// "none", "sgd" or "adam" (training only).
  std::string optimizer = "none";
  /// Mixed precision with FP32 master weights (training, FP16/BF16 only).
  bool masterWeights = false;
};

/// The step options as the --import-model-config flags spell them.
struct StepFlags {
  int64_t batch = 1, seq = 0, context = 0;
  std::string phase = "inference", dtype = "fp32", attention = "eager",
              head = "default", optimizer = "none", routing = "balanced",
              loss = "none", kvCache = "none", engine = "hf";
  int64_t kvBlockSize = 16;
  bool masterWeights = false;
};

/// The StepOptions of `flags`; an unknown value is an error naming its flag
/// and the values it takes.
llvm::Expected<StepOptions> parseStepOptions(const StepFlags &flags);

/// Checks the options against the config; errors say which option is out of
/// range and why. A sequence longer than the model's positions is an error
/// (its position table has no rows for it).
llvm::Error checkStepOptions(const TransformerConfig &config,
                             const StepOptions &options);

} // namespace perf

#endif // PERF_IMPORT_MODELCONFIG_H
