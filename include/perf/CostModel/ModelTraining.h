//===- ModelTraining.h - Fitting the tile and ml models ---------*- C++ -*-===//
//
// What perf-train and perf-eval --leave-one-out share: turning measured
// rows into the tile model's alpha/beta coefficients and the ml model's
// per-kind boosters, written to one directory the cost pass loads.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_MODELTRAINING_H
#define PERF_COSTMODEL_MODELTRAINING_H

#include "perf/CostModel/MlModel.h"
#include "perf/CostModel/RooflineModel.h"
#include "perf/CostModel/TileModel.h"
#include "llvm/Support/raw_ostream.h"

namespace perf {

/// One measured kernel on a known GPU.
struct TrainingRow {
  const KernelDesc *kernel = nullptr;
  const GpuSpec *gpu = nullptr;
  double measuredUs = 0;
  /// How much the row counts in the ml boosters' loss; rows above 1 (a few
  /// measurements of a new GPU among many of others) are never dropped by
  /// the subsample.
  double weight = 1;
};

/// Fits one TileParams per family (gemm, conv2d) present in `rows`, on at
/// most `maxRows` rows per family (uniform subsample, fixed seed).
TileParamsSet fitTileFamilies(llvm::ArrayRef<TrainingRow> rows,
                              size_t maxRows = 20000, unsigned seed = 1,
                              unsigned iterations = 1500);

/// Each device's lowest element-wise latency (devices without element-wise
/// rows are absent).
LaunchCalibration measureLaunchCalibration(llvm::ArrayRef<TrainingRow> rows);

/// Fits a RooflineFit per device, kernel kind and number type with at least
/// `minRows` rows (on at most `maxRows` of them, fixed seed), minimizing
/// the mean |log(predicted / measured)| by coordinate descent over grids of
/// the two efficiencies and the fixed cost; ties go to the higher
/// efficiency, so a side that never binds stays at 1. Each fit's launchUs is
/// its device's in `launch` (the mean of `launch` for a device without
/// element-wise rows). Then adds the "*" fits that pass a leave-one-device-
/// out check against the plain roofline.
RooflineCalibration fitRooflineCalibration(llvm::ArrayRef<TrainingRow> rows,
                                           const LaunchCalibration &launch,
                                           size_t maxRows = 4000,
                                           size_t minRows = 20,
                                           unsigned seed = 1);

/// The chip a device name is a board of ("A100-PCIe-40GB" and
/// "A100-SXM4-80GB": "A100"): held out together.
std::string chipOf(llvm::StringRef device);

/// Leave-one-chip-out over `rows`: for each chip, the models of
/// kDefaultModelStack are trained on the other chips' rows (in a folder
/// under `workDir`) and price the chip's rows as measured (isolated). Per
/// kernel kind and number type, the model with the lowest mean GMAE over
/// the held-out chips, among those that priced at least 90% of each chip's
/// rows, is chosen. With rows of one chip only, nothing can be held out and
/// every kind gets ModelSelection::kAnalyticOnly. Progress and the scores go
/// to `log`.
llvm::Expected<ModelSelection>
selectModelsByHeldOutGpu(llvm::ArrayRef<TrainingRow> rows,
                         llvm::StringRef workDir, const MlTrainOptions &options,
                         llvm::raw_ostream &log);

/// Trains an ml booster per kernel kind into `dir`/<kind>.ubj (targets
/// over mlBaselineUs with the devices' measureLaunchCalibration, saved to
/// `dir`/launch.json), fits the tile coefficients into `dir`/tile.json and
/// the roofline calibration into `dir`/roofline.json; with options.select,
/// the held-out model selection into `dir`/selection.json.
/// Progress goes to `log`.
llvm::Error trainModelDirectory(llvm::ArrayRef<TrainingRow> rows,
                                llvm::StringRef dir,
                                const MlTrainOptions &options,
                                llvm::raw_ostream &log);

} // namespace perf

#endif // PERF_COSTMODEL_MODELTRAINING_H
