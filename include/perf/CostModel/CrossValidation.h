//===- CrossValidation.h - Kernel models judged on held-out rows -*- C++ -*-===//
//
// How well a kernel cost model prices measurements it was not fitted on:
// leave-one-GPU-out (train on every chip but one, price the held-out one:
// the unseen-GPU case), optionally with a few rows of the held-out GPU in
// training, or NeuSight's in-distribution split (a random share of every
// GPU held out). perf-eval drives it; docs/accuracy.md is its output.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_CROSSVALIDATION_H
#define PERF_COSTMODEL_CROSSVALIDATION_H

#include "perf/CostModel/KernelMeasurements.h"
#include "perf/CostModel/ModelTraining.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <string>
#include <vector>

namespace perf {

struct CrossValidationOptions {
  enum class Protocol { LeaveOneGpuOut, InDistribution };
  Protocol protocol = Protocol::LeaveOneGpuOut;
  /// Models to judge: any name createKernelCostModel knows, a combination
  /// a*b, "ml-calibrated" (ml told the held-out GPU's measured fixed cost)
  /// or "auto" (the default stack with a selection made without the
  /// held-out GPU).
  std::vector<std::string> models;
  /// InDistribution: the share of every GPU's rows held out.
  double testFraction = 0.2;
  /// LeaveOneGpuOut: rows of each op of the held-out GPU moved into
  /// training with `fewShotWeight` (a short measurement run on a new GPU).
  unsigned fewShot = 0;
  double fewShotWeight = 10;
  /// Share of the held-out rows priced (fixed seed), to keep runs short.
  double evalFraction = 1;
  unsigned seed = 7;
  /// The ml training of every split (rounds, depth, rows per kind).
  MlTrainOptions training;
  /// Where each split's models are written (a folder per split).
  std::string workDir;
};

/// One training run and the rows it is judged on.
struct CrossValidationSplit {
  /// Folder name of the models trained for this split.
  std::string name;
  std::vector<TrainingRow> train;
  std::vector<const KernelMeasurement *> test;
};

/// The splits of `rows` under `options`; `devices` maps each row's device
/// to its GPU figures and must outlive the splits.
std::vector<CrossValidationSplit>
makeCrossValidationSplits(llvm::ArrayRef<KernelMeasurement> rows,
                          const llvm::StringMap<GpuSpec> &devices,
                          const CrossValidationOptions &options);

/// The group a measured op is also reported in ("gemm (bmm+linear)", ...),
/// or "".
std::string crossValidationGroupOf(llvm::StringRef op);

struct CrossValidationResult {
  /// The chips, sorted: the columns.
  std::vector<std::string> folds;
  /// Model -> op or group -> chip -> the rows it priced (isolated prices).
  std::map<std::string,
           std::map<std::string, std::map<std::string, std::vector<PricedRow>>>>
      priced;
  /// Chip -> rows judged.
  std::map<std::string, size_t> testRows;
};

/// Trains what each split's models need, prices its test rows with every
/// model and collects the errors. Progress goes to `log`.
llvm::Expected<CrossValidationResult>
runCrossValidation(llvm::ArrayRef<KernelMeasurement> rows,
                   const llvm::StringMap<GpuSpec> &devices,
                   const CrossValidationOptions &options,
                   llvm::raw_ostream &log);

/// Markdown: per model a table of MAPE / GMAE, ops down, chips across; with
/// `debiasedModels`, those models again with each chip's predictions
/// divided by their median ratio to the measurements.
void printCrossValidationTables(const CrossValidationResult &result,
                                const CrossValidationOptions &options,
                                llvm::ArrayRef<std::string> debiasedModels,
                                llvm::raw_ostream &os);

} // namespace perf

#endif // PERF_COSTMODEL_CROSSVALIDATION_H
