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
enum class ModelFamily { Gpt2, Opt, Bert, Llama };

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

  int64_t headDim() const { return hidden / heads; }
};

/// Reads `text` (the contents of `path`) as a HuggingFace config. Errors
/// name the file and the missing or bad key.
llvm::Expected<TransformerConfig> parseModelConfig(llvm::StringRef text,
                                                   llvm::StringRef path);

enum class StepPhase { Inference, Training };
/// eager: matmul, scale, mask, softmax, matmul as separate kernels (HF's
/// eager attention); sdpa/flash: one fused attention kernel.
enum class AttentionImpl { Eager, Fused };
/// What follows the last layer: the LM head, a sequence classifier (pooler
/// and a 2-way linear), BERT's pre-training heads, or nothing.
enum class ModelHead { Default, Lm, Classifier, Pretraining, None };

struct StepOptions {
  int64_t batch = 1, seq = 0;
  StepPhase phase = StepPhase::Inference;
  DType dtype = DType::F32;
  AttentionImpl attention = AttentionImpl::Eager;
  ModelHead head = ModelHead::Default;
  /// "none", "sgd" or "adam" (training only).
  std::string optimizer = "none";
};

/// Checks the options against the config; errors say which option is out of
/// range and why. A sequence longer than the model's positions is an error
/// (its position table has no rows for it).
llvm::Error checkStepOptions(const TransformerConfig &config,
                             const StepOptions &options);

} // namespace perf

#endif // PERF_IMPORT_MODELCONFIG_H
