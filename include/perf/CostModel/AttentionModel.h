//===- AttentionModel.h - Fused attention as FlashAttention runs -*- C++
//-*-===//
//
// A fused attention kernel (FlashAttention-2/3, cuDNN's, PyTorch's
// memory-efficient one) is priced from how it tiles the work:
//
// - each CTA takes one block of Bm query rows of one head (of a key head,
//   its query heads packed together, when the queries are few: decoding)
//   and streams the key and value blocks of Bn keys its rows see through
//   shared memory: all of them, under a causal mask those up to the block's
//   last row (aligned to the last key), within a sliding window the last
//   `window`;
// - a key block costs its two products, 4 Bm Bn d FLOPs at a fraction of
//   the tensor cores' peak per SM, and its softmax, a number of SM cycles
//   per score (the exponentials FlashAttention-3 overlaps but cannot hide
//   at d = 64); a CTA also pays a fixed time for its query block (loading
//   Q, writing O);
// - the CTAs run over the SMs, the step taking the longer of their mean
//   load and the longest CTA; when they are too few to fill the SMs and
//   each sees several key blocks, the keys are split among more CTAs
//   ("flash-decoding") and a combine kernel adds their partial results;
// - decoding is bound by reading the cache: each key and value head once,
//   shared by its query heads, at a fraction of the memory bandwidth;
// - the backward pass takes 2.5x the forward's FLOPs (KernelDesc) at a
//   fraction of its rate.
//
// The parameters are fractions of the datasheet's peaks and SM cycles, so
// a fit on one GPU (perf-train on measured attention)
// prices another from its catalog figures. The stack calls it "flash"
// (flash.json in a model folder: "attention.json" would be the ml model's
// booster of the attention kind).
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_ATTENTIONMODEL_H
#define PERF_COSTMODEL_ATTENTIONMODEL_H

#include "perf/CostModel/KernelCostModel.h"
#include <string>
#include <vector>

namespace perf {

/// The defaults are the shipped fit (data/models/neusight/flash.json:
/// PyTorch's fused attention timed on an H200, the fixed cost and memory
/// efficiency the tensor-core GEMMs'; bench/models/train_default.sh).
struct AttentionParams {
  static constexpr int kVersion = 1;
  /// The kernel's fixed device time, us.
  double overheadUs = 3.32;
  /// Fraction of the tensor cores' peak the products run at.
  double mmaEfficiency = 0.796;
  /// SM cycles per score the softmax takes (exponential and rescale).
  double softmaxCyclesPerScore = 0.0443;
  /// A CTA's fixed time for its query block, us.
  double blockOverheadUs = 3.84;
  /// The backward pass's rate relative to the forward's.
  double backwardEfficiency = 0.734;
  /// Fraction of the memory bandwidth the cache is read at.
  double memoryEfficiency = 0.872;
  /// The combine kernel of a split-key launch, us.
  double combineUs = 2.0;
  /// What the fit saw.
  int64_t rows = 0;
  std::vector<std::string> devices;

  llvm::json::Value toJson() const;
  static llvm::Expected<AttentionParams> load(llvm::StringRef path);
};

/// How a fused attention kernel spreads over the SMs.
struct AttentionTiling {
  /// Query rows and keys per block.
  int64_t blockM = 0, blockN = 0;
  /// Query rows per head block: the queries, times the query heads of a
  /// key head when they are packed together.
  int64_t rows = 0;
  /// Heads a CTA's block belongs to: query heads, or key heads when
  /// packed.
  int64_t heads = 0;
  /// CTAs and the key blocks each sees, per query block (every head has
  /// the same), before any split.
  int64_t queryBlocks = 0;
  std::vector<int64_t> keyBlocks;
  /// Pieces the keys are split into (1: none).
  int64_t splits = 1;
  /// The (query row, key) pairs a CTA scores in one key block.
  double scoresPerBlock = 0;
};
std::optional<AttentionTiling> tileAttention(const KernelDesc &kernel,
                                             const GpuSpec &gpu);

class AttentionModel : public KernelCostModel {
public:
  explicit AttentionModel(AttentionParams params = {})
      : params(std::move(params)) {}
  llvm::StringRef name() const override { return "flash"; }
  /// Fused attention in FP16, BF16 or FP8 on a GPU with tensor cores;
  /// declines the rest (FP32 attention runs PyTorch's other kernels).
  std::optional<KernelCost> estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const override;
  const AttentionParams &parameters() const { return params; }

private:
  AttentionParams params;
};

/// The model's device time of `kernel` under `params`, us (0 when it
/// declines).
double attentionTimeUs(const KernelDesc &kernel, const GpuSpec &gpu,
                       const AttentionParams &params);

/// One measured attention call: the forward alone, or the forward and the
/// backward (`withBackward`, as a training step's autograd runs them).
struct AttentionMeasurement {
  KernelDesc forward;
  bool withBackward = false;
  std::string device;
  double latencyUs = 0;
  std::string file;
  unsigned line = 0;
};

/// Reads data/measured/*/attention.csv (runtime/bench/campaign/
/// attention_sweep.py: device, dtype, pass, b, h, s, d, causal, ...,
/// latency_us); errors name the file and line.
llvm::Expected<std::vector<AttentionMeasurement>>
readAttentionCsv(llvm::StringRef path);

/// The model's price of a measured call: the forward's, plus the
/// backward's when it has one.
double attentionCallUs(const AttentionMeasurement &call, const GpuSpec &gpu,
                       const AttentionParams &params);

/// Fits the parameters the calls can tell (mmaEfficiency,
/// softmaxCyclesPerScore, blockOverheadUs, backwardEfficiency) on `calls`,
/// each on its device's catalog figures, minimizing the squared log error;
/// the others keep `start`'s. The calls are timed from the host, so only
/// those the GPU's time dominates belong in the fit (the caller picks).
AttentionParams
fitAttention(llvm::ArrayRef<AttentionMeasurement> calls,
             llvm::function_ref<const GpuSpec *(llvm::StringRef)> deviceOf,
             const AttentionParams &start = {});

} // namespace perf

#endif // PERF_COSTMODEL_ATTENTIONMODEL_H
