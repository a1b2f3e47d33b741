//===- TensorCoreGemmModel.h - GEMMs on tensor cores ------------*- C++ -*-===//
//
// A GEMM the libraries run on tensor cores (TF32, FP16, BF16, FP8) is priced
// from what bounds it on any GPU: the multiply-adds at a fraction of the
// tensor cores' peak, plus the epilogue's store of the output, which
// Hopper's kernels do not hide behind the main loop (8192 x 6144 x 768 in
// BF16 runs at 0.57 of the peak where 4096 x 1024 x 4096 runs at 0.80, on
// an H200), or the operands' traffic at a fraction of the memory bandwidth,
// and a fixed cost:
//
//   t = t0 + max(F / (peak * e_c) + w * B_out / (BW * e_m), B / (BW * e_m))
//
// The efficiencies are fractions of the datasheet peaks, so the fit on one
// GPU prices another from its catalog figures; perf-train fits them on
// measured tensor-core GEMMs (tensorcore.json).
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_TENSORCOREGEMMMODEL_H
#define PERF_COSTMODEL_TENSORCOREGEMMMODEL_H

#include "perf/CostModel/KernelCostModel.h"
#include "perf/CostModel/KernelMeasurements.h"
#include <map>
#include <string>

namespace perf {

/// The defaults are the shipped fit (data/models/neusight/tensorcore.json:
/// perf-bench's 1,217 aligned H200 GEMMs, bench/models/train_default.sh).
struct TensorCoreGemmParams {
  static constexpr int kVersion = 1;
  /// The kernel's fixed device time, us.
  double overheadUs = 3.32;
  /// Fraction of the memory bandwidth the operands stream at.
  double memoryEfficiency = 0.872;
  /// Share of the output's store time that adds to the main loop's.
  double epilogueWeight = 0.591;
  /// Fraction of the tensor cores' peak per number type ("tf32", "f16",
  /// "bf16", "f8"); a type without one takes bf16's.
  std::map<std::string, double> computeEfficiency = {
      {"tf32", 0.433}, {"f16", 0.776}, {"bf16", 0.815}};
  /// What the fit saw: rows per number type and the GPUs.
  std::map<std::string, int64_t> rows;
  std::vector<std::string> devices;

  /// The compute efficiency of `dtype`, null for a type it has none of.
  double computeEfficiencyOf(DType dtype) const;
  llvm::json::Value toJson() const;
  /// Reads what toJson wrote; errors name `path`.
  static llvm::Expected<TensorCoreGemmParams> load(llvm::StringRef path);
};

class TensorCoreGemmModel : public KernelCostModel {
public:
  explicit TensorCoreGemmModel(TensorCoreGemmParams params = {})
      : params(std::move(params)) {}
  llvm::StringRef name() const override { return "tensorcore"; }
  /// GEMMs on tensor cores in TF32, FP16, BF16 or FP8; declines the rest.
  std::optional<KernelCost> estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const override;
  const TensorCoreGemmParams &parameters() const { return params; }

private:
  TensorCoreGemmParams params;
};

/// Whether the model prices `kernel`: a tensor-core GEMM of a number type
/// it knows.
bool isTensorCoreGemm(const KernelDesc &kernel);

/// Fits the parameters on `rows` (tensor-core GEMMs, each on the catalog
/// figures of its device: efficiencies are fractions of datasheet peaks),
/// minimizing the squared log error; the CUDA-core and other rows are left
/// out. A number type without rows keeps `start`'s efficiency.
TensorCoreGemmParams
fitTensorCoreGemm(llvm::ArrayRef<KernelMeasurement> rows,
                  llvm::function_ref<const GpuSpec *(llvm::StringRef)> deviceOf,
                  const TensorCoreGemmParams &start = {});

} // namespace perf

#endif // PERF_COSTMODEL_TENSORCOREGEMMMODEL_H
