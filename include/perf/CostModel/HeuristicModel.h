//===- HeuristicModel.h - DLRM-paper analytic kernel models -----*- C++ -*-===//
//
// The heuristic kernel models of Lin et al., "Building a Performance Model
// for Deep Learning Recommendation Model Training on GPUs" (seed 000,
// Sec. III-B1): the batched embedding lookup priced from its per-warp DRAM
// and L2 traffic with an estimated L2 hit rate, and the memory kernels
// (element-wise, concat, memcpy, transpose) priced by a roofline over the
// measured peak bandwidth. Softmax, layer norm and reductions are priced the
// same way from the number of passes their kernels make over the data.
// GEMM, conv and attention are declined: they belong to the tile and ml models.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_HEURISTICMODEL_H
#define PERF_COSTMODEL_HEURISTICMODEL_H

#include "perf/CostModel/KernelCostModel.h"

namespace perf {

/// The per-warp traffic and L2 hit rate of one batched embedding lookup;
/// exposed so tests can check each term of the paper's formulas.
struct EmbeddingTraffic {
  /// Tables whose rows share the L2 at one time (num_tables in the paper).
  double tablesInL2 = 0;
  /// avg_cached_rows_per_table.
  double cachedRowsPerTable = 0;
  /// p: the probability that all L looked-up rows of a bag are in L2.
  double hitRate = 0;
  /// Per-warp bytes served by DRAM and by L2 (tr_DRAM, tr_L2).
  double dramBytesPerWarp = 0;
  double l2BytesPerWarp = 0;
  /// B x T warps.
  double warps = 0;
};

EmbeddingTraffic embeddingTraffic(const KernelDesc &kernel, const GpuSpec &gpu,
                                  unsigned rowsPerBlock);

/// C(a, l) / C(e, l) for real a <= e, computed as a product so that tables
/// of a billion rows do not overflow.
double embeddingHitRate(double cachedRows, double tableRows, int64_t pooling);

class HeuristicModel : public KernelCostModel {
public:
  /// `memoryEfficiency` is the measured peak DRAM bandwidth as a fraction
  /// of the datasheet figure (the paper benchmarks it; 0.8 is typical of
  /// HBM2 and GDDR6 parts).
  HeuristicModel(double computeEfficiency, double memoryEfficiency,
                 unsigned embeddingRowsPerBlock)
      : computeEfficiency(computeEfficiency),
        memoryEfficiency(memoryEfficiency),
        rowsPerBlock(embeddingRowsPerBlock) {}
  llvm::StringRef name() const override { return "heuristic"; }
  /// The traffic bound below, and never less than kMinKernelUs.
  std::optional<KernelCost> estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const override;

private:
  /// The time the kernel's DRAM and L2 traffic takes (the paper's models).
  std::optional<KernelCost> trafficCost(const KernelDesc &kernel,
                                        const GpuSpec &gpu) const;

  double computeEfficiency;
  double memoryEfficiency;
  unsigned rowsPerBlock;
};

} // namespace perf

#endif // PERF_COSTMODEL_HEURISTICMODEL_H
