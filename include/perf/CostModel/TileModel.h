//===- TileModel.h - NeuSight tile/wave model for GEMM and conv -*- C++ -*-===//
//
// Lee, Mahajan, Phanishayee, "Forecasting GPU Performance for Deep Learning
// Training and Inference" (NeuSight, seed 001), "Kernel-wise Prediction":
//
//   num_tiles   = prod_i ceil(x_i / t_i)
//   num_waves   = ceil(num_tiles / num_sm)
//   latency     = PerTileLatency * num_waves
//   PerTileLatency = flops_tile / (roofline_BW * utilization)
//   roofline_BW = min(K * memBW, peak FLOPs), K = flops / mem (per SM here)
//   utilization = alpha - beta / num_waves
//   alpha, beta = sigmoid(f(kernel and GPU features))
//
// NeuSight uses an 8-layer MLP for f; here f is linear in a few log-scaled,
// GPU-relative features (the ones of NeuSight's feature table plus wave and
// tile counts), which keeps the fit to seconds on two cores and lets it
// extend to GPUs outside the training set. beta is alpha * sigmoid(.) so the
// utilization stays in (0, 1] and the per-tile latency never beats the
// roofline. A fitted launch overhead is added to the wave time: the measured
// latencies include a fixed cost that no tile term explains.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_TILEMODEL_H
#define PERF_COSTMODEL_TILEMODEL_H

#include "perf/CostModel/KernelCostModel.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"
#include <array>
#include <map>
#include <string>
#include <vector>

namespace perf {

/// An output tile: `first` elements along the dimension the library's first
/// tile number covers (cuBLAS's m, i.e. the columns of a row-major C, or
/// N*P*Q of an implicit-GEMM conv), `second` along the other.
struct TileShape {
  int64_t first = 0, second = 0;
};

/// Reads the tile from a kernel symbol: "volta_sgemm_128x64_nn",
/// "ampere_sgemm_32x32_sliced1x4_tn",
/// "cudnn_infer_volta_scudnn_128x32_relu_..",
/// "cutlass_80_tensorop_s1688gemm_128x256_32x3_nn_align4" -> the first
/// "<a>x<b>" with both sides in [16, 512].
std::optional<TileShape> parseTileFromKernelName(llvm::StringRef name);

/// A GEMM or conv as the GEMM the library runs (conv as implicit GEMM):
/// `batch` independent problems with outputs of first x second elements
/// and `reduction` multiply-adds per output.
struct GemmView {
  int64_t batch = 1, first = 0, second = 0, reduction = 0;
};
std::optional<GemmView> gemmView(const KernelDesc &kernel);

/// The cuBLAS-like choice when no kernel name is known: the largest tile
/// that still fills every SM at least once, else the smallest.
TileShape chooseTile(const GemmView &gemm, const GpuSpec &gpu);

/// Number of log-scaled features alpha and beta are predicted from.
constexpr unsigned kTileFeatureCount = 10;
llvm::ArrayRef<const char *> tileFeatureNames();

/// Everything the tile model derives before applying alpha and beta.
struct TileAnalysis {
  TileShape tile;
  double tiles = 0, waves = 0;
  /// Slices the reduction is split into (split-K), 1 when not split.
  double splitK = 1;
  double flopsPerTile = 0, bytesPerTile = 0;
  /// min(AI_tile * bandwidth, peak) / num_sm, FLOP/s.
  double rooflinePerSM = 0;
  std::array<double, kTileFeatureCount> features{};
};
std::optional<TileAnalysis> analyzeTiles(const KernelDesc &kernel,
                                         const GpuSpec &gpu);

/// The fitted coefficients of one kernel family (gemm or conv2d).
struct TileParams {
  std::array<double, kTileFeatureCount> alpha{};
  std::array<double, kTileFeatureCount> beta{};
  double overheadUs = 0;
  /// Rows the fit saw (0: built-in defaults).
  int64_t trainedRows = 0;
  /// Number types of the rows it was fitted on (numberTypeKey: "f32",
  /// "f16+tc"). A kernel of another type falls through to the next model:
  /// utilization learned on CUDA-core FP32 GEMMs does not hold on tensor
  /// cores.
  std::vector<std::string> coverage{"f32"};
};

/// utilization = alpha - beta / num_waves for `analysis` under `params`.
double tileUtilization(const TileAnalysis &analysis, const TileParams &params);
/// overhead + num_waves * flops_tile / (roofline_per_SM * utilization), us.
double tileLatencyUs(const TileAnalysis &analysis, const TileParams &params);

/// Family name a kernel's coefficients are stored under, or "" if the tile
/// model does not price its kind.
llvm::StringRef tileFamily(const KernelDesc &kernel);

struct TileSample {
  TileAnalysis analysis;
  double measuredUs = 0;
};
/// Fits params minimizing the squared log error (full-batch Adam).
TileParams fitTileParams(llvm::ArrayRef<TileSample> samples,
                         unsigned iterations = 1500);

using TileParamsSet = std::map<std::string, TileParams>;
/// The coefficients fitted on all NeuSight GPUs (P100, P4, T4, V100, A100).
TileParamsSet defaultTileParams();
llvm::json::Value tileParamsToJson(const TileParamsSet &params);
llvm::Expected<TileParamsSet> tileParamsFromJson(const llvm::json::Value &v);
llvm::Expected<TileParamsSet> loadTileParams(llvm::StringRef path);

class TileModel : public KernelCostModel {
public:
  explicit TileModel(TileParamsSet params) : params(std::move(params)) {}
  llvm::StringRef name() const override { return "tile"; }
  std::optional<KernelCost> estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const override;

private:
  TileParamsSet params;
};

} // namespace perf

#endif // PERF_COSTMODEL_TILEMODEL_H
