//===- MlModel.h - Learned kernel latency models (XGBoost) ------*- C++ -*-===//
//
// Gradient-boosted trees (XGBoost, Debian's libxgboost-dev, through its C
// API) trained by perf-train per kernel kind from measured latencies. The
// target is log(measured / roofline at peak): a log-space residual over the
// roofline, so trees, which cannot extrapolate, only learn how far from the
// bound a kernel runs while the roofline carries the scaling with the GPU's
// FLOP/s and bandwidth. GPU figures (SMs, clock, peak FLOP/s, bandwidth, L2,
// memory) are inputs, so a GPU absent from the training data is priced from
// its specs. The DLRM paper (seed 000, Sec. III-B2) learns GEMM/transpose
// times from log-scaled sizes the same way, with MLPs.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_MLMODEL_H
#define PERF_COSTMODEL_MLMODEL_H

#include "perf/CostModel/KernelCostModel.h"
#include "perf/CostModel/TileModel.h"
#include "perf/CostModel/TreeEnsemble.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace perf {

/// Length of the feature vector every kind shares (unused entries are 0).
constexpr unsigned kMlFeatureCount = 32;
std::vector<float> mlFeatures(const KernelDesc &kernel, const GpuSpec &gpu);

/// What the learned residual multiplies, in us: the roofline at 100% of peak
/// plus the GPU's fixed per-kernel cost `launchUs` (launch, tail and timing;
/// 25-41 us on the NeuSight machines, far above the bound of a small kernel).
/// With the fixed cost in the baseline, a tiny kernel's target is
/// log(its floor / the GPU's floor), about the same on every GPU, where
/// the plain roofline's was log(floor / bound), which scales with the GPU's
/// bandwidth and trees cannot extrapolate.
double mlBaselineUs(const KernelDesc &kernel, const GpuSpec &gpu,
                    double launchUs = 0);

/// The fixed per-kernel cost of a device, measured: the lowest latency of an
/// element-wise kernel on it (the data's stand-in for an empty-kernel
/// microbenchmark). Keyed by GpuSpec::name.
using LaunchCalibration = std::map<std::string, double>;

struct MlSample {
  const KernelDesc *kernel = nullptr;
  const GpuSpec *gpu = nullptr;
  double measuredUs = 0;
  /// The device's fixed cost (LaunchCalibration), 0 if unknown.
  double launchUs = 0;
  /// What the residual multiplies instead of mlBaselineUs, if positive (the
  /// tile model's price of a GEMM; mlGemmBaselineUs).
  double baselineUs = 0;
  /// The row's weight in the loss (TrainingRow::weight).
  double weight = 1;
};

/// The baseline of a GEMM booster trained next to fitted tile coefficients:
/// the tile model's price (wave-quantized, per-tile roofline, fitted
/// utilization and overhead), so the trees learn the tile model's residual.
/// 0 if `gemm` has no analysis.
/// Name (file stem) of the GEMM booster trained on the tile model's residual.
constexpr const char *kMlGemmTileResidual = "gemm.tile-residual";
double mlGemmBaselineUs(const KernelDesc &kernel, const GpuSpec &gpu,
                        const TileParams &gemm);

struct MlTrainOptions {
  unsigned rounds = 300;
  unsigned maxDepth = 8;
  double eta = 0.1;
  unsigned threads = 2;
  /// Rows beyond this are subsampled (uniformly, fixed seed) to keep
  /// training to seconds on two cores; rows weighted above 1 are kept.
  size_t maxRows = 40000;
  unsigned seed = 1;
  /// Whether trainModelDirectory trains boosters (false: tile.json and
  /// roofline.json only).
  bool trainBoosters = true;
  /// Whether trainModelDirectory writes roofline.json and nothing else.
  bool rooflineOnly = false;
  /// Whether trainModelDirectory also writes selection.json
  /// (selectModelsByHeldOutGpu).
  bool select = false;
};

/// The independent extent of a memory-bound kernel that its time grows
/// linearly with once the GPU is full: elements of an element-wise kernel,
/// rows of a softmax, layer norm or reduction; 0 for other kinds.
int64_t mlParallelExtent(const KernelDesc &kernel);
/// `kernel` with its parallel extent set to `extent`.
KernelDesc mlWithParallelExtent(const KernelDesc &kernel, int64_t extent);

/// The rows a booster trains on: every row weighted above 1, then the others
/// in a uniform sample (seeded) up to `maxRows` in all.
std::vector<size_t> selectTrainingRows(llvm::ArrayRef<MlSample> samples,
                                       size_t maxRows, unsigned seed);

/// Trains one kind's booster and saves it to `path`, in XGBoost's UBJSON
/// (<kind>.ubj) or JSON (<kind>.json) by the name.
llvm::Error trainMlModel(llvm::ArrayRef<MlSample> samples,
                         const MlTrainOptions &options, llvm::StringRef path);

/// The bytes of the XGBoost model file at `path` (JSON or UBJSON, plain or
/// gzip-compressed), once they are checked to be a regression tree ensemble over
/// `numFeatures` features that XGBoost can read safely: well-formed trees,
/// splits on existing features, within the limits. Errors name the file and
/// the first bad entry.
llvm::Expected<std::string> readBoosterFile(llvm::StringRef path,
                                            unsigned numFeatures);

/// The trees of the booster at `path`, read and checked as readBoosterFile
/// reads them, to walk in place.
llvm::Expected<TreeEnsemble> readBooster(llvm::StringRef path,
                                         unsigned numFeatures);

class MlModel : public KernelCostModel {
public:
  /// Loads every <kind>.ubj (or older <kind>.json) booster in `dir`, gzipped
  /// or not (kind as kernelKindName); with `kinds`, only theirs (the rest
  /// of the folder is still read and checked; the other boosters are read
  /// by prepare(), and until then kernels of their kinds fall through).
  static llvm::Expected<std::unique_ptr<MlModel>>
  load(llvm::StringRef dir,
       const std::optional<std::set<KernelKind>> &kinds = std::nullopt);
  ~MlModel() override;
  llvm::StringRef name() const override { return "ml"; }
  std::optional<KernelCost> estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const override;
  /// Reads and checks the boosters of `kinds` not read yet, in parallel
  /// (GEMM's two); the first error names its file.
  llvm::Error prepare(llvm::ArrayRef<KernelKind> kinds) override;
  /// Kinds whose booster is loaded: the folder's, or those of `kinds` and
  /// of prepare().
  std::vector<std::string> kinds() const;
  /// The fixed cost used for `gpu`: its calibration if known, else the mean
  /// of the calibrated devices (the training GPUs), else 0.
  double launchUsFor(const GpuSpec &gpu) const;
  /// Adds or replaces a device's measured fixed cost (one number measured
  /// on a GPU, not training: the boosters are unchanged).
  void calibrateLaunch(llvm::StringRef device, double launchUs);

private:
  MlModel() = default;
  /// One booster file of the folder, read once, when its kind is first
  /// prepared. The map of them is fixed once load() returns, so estimate()
  /// reads a booster's published trees while another thread may be
  /// preparing other kinds.
  struct Booster {
    std::string path;
    std::once_flag once;
    /// `trees`, published (release) once read and checked.
    std::atomic<const TreeEnsemble *> published{nullptr};
    std::unique_ptr<TreeEnsemble> trees;
    /// Why it could not be read; reported by the prepare() that tried.
    std::optional<llvm::Error> error;
  };
  /// Reads `wanted` (boosters not read yet) on all cores.
  llvm::Error read(llvm::ArrayRef<Booster *> wanted);
  const TreeEnsemble *treesOf(llvm::StringRef kind) const;
  /// The price of a kernel no larger than the training rows of its kind.
  std::optional<KernelCost> estimateWithinCoverage(const TreeEnsemble *booster,
                                                   const KernelDesc &kernel,
                                                   const GpuSpec &gpu) const;
  /// Per kind (and the GEMM tile residual), its booster file.
  llvm::StringMap<std::unique_ptr<Booster>> boosters;
  /// Held while a prepare() takes the errors of the boosters it read.
  std::mutex errorLock;
  /// launch.json of the model directory, plus calibrateLaunch.
  LaunchCalibration launch;
  double defaultLaunchUs = 0;
  /// The tile model's GEMM coefficients (tile.json), when the directory has
  /// them: the GEMM booster's baseline (mlGemmBaselineUs).
  std::optional<TileParams> gemmTile;
  /// Per kind, the coverage keys of its training rows (coverage.json); a
  /// kind without an entry (a folder written before the file existed) is
  /// priced whatever its type.
  llvm::StringMap<std::vector<std::string>> coverage;
  /// Per kind, the largest parallel extent of its training rows
  /// (coverage.json's "extents"). Trees cannot extrapolate past their data,
  /// so a larger kernel is priced from this extent on at the marginal cost
  /// per unit there (estimate).
  llvm::StringMap<int64_t> maxExtent;
};

} // namespace perf

#endif // PERF_COSTMODEL_MLMODEL_H
