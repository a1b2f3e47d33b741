//===- KernelCostModel.h - One interface for every latency model -*- C++ -*-=//
//
// A kernel latency model answers "how long does this kernel take on that
// GPU", or declines (std::nullopt) so the next model in the user's order is
// tried. Latencies are in microseconds.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_KERNELCOSTMODEL_H
#define PERF_COSTMODEL_KERNELCOSTMODEL_H

#include "perf/Support/GpuSpec.h"
#include "perf/Support/KernelDesc.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace perf {

struct KernelCost {
  /// Device time of the kernel queued behind others on a stream.
  double latencyUs = 0;
  /// What timing the kernel alone between two events adds (the isolated
  /// launch a measurement sweep sees); 0 where the model does not know.
  double isolationUs = 0;
  /// Name of the model that priced the kernel ("roofline", "db", ...).
  std::string model;
  /// Whether the compute or the memory side bounds it (roofline view).
  bool computeBound = false;
};

/// The number type a fitted model must have seen to price a kernel: "f32",
/// or "f16+tc" for f16 on tensor cores (coverage.json, tile.json and
/// roofline.json key their fits by it). A fit on FP32 CUDA-core kernels says
/// nothing about tensor-core ones.
std::string numberTypeKey(const KernelDesc &kernel);

/// Device time of the smallest kernel queued behind others on a stream:
/// back-to-back empty kernels retire about every 2 us on Pascal to Hopper.
constexpr double kStreamedKernelUs = 2.0;
/// The device time of the shortest kernel itself: of those 2 us, the
/// schedule's gap between back-to-back kernels (--kernel-gap-us) is 1, and
/// Vidur's fastest kernels (a residual add of one token, CUPTI kernel times
/// on the A100 and the A40) take 1 us.
constexpr double kMinKernelUs = kStreamedKernelUs - 1.0;

/// The price of a kernel fitted on rows that time each kernel alone between
/// two events: `isolatedUs` carries the device's fixed cost of an isolated
/// launch, `launchUs` (its fastest measured kernel). Behind other kernels on
/// a stream the device does not wait for that launch, and the host's side
/// of it is priced by the host overheads, so latencyUs is the isolated time
/// less the launch beyond kStreamedKernelUs, and isolationUs what it gave up.
KernelCost splitIsolatedCost(double isolatedUs, double launchUs);

/// A kernel a lookup model was asked about and could not find; the report
/// lists these so the missing measurements can be taken.
struct KernelCostMiss {
  std::string device;
  std::string dtype;
  std::string kind;
  std::string signature;
};

class KernelCostModel {
public:
  virtual ~KernelCostModel();
  virtual llvm::StringRef name() const = 0;
  /// Prices `kernel` on `gpu`, or returns std::nullopt to fall through.
  virtual std::optional<KernelCost> estimate(const KernelDesc &kernel,
                                             const GpuSpec &gpu) const = 0;
  /// Distinct kernels this model declined for lack of data, in the order
  /// first seen. Only lookup models (db) record any.
  virtual std::vector<KernelCostMiss> misses() const { return {}; }
  /// Reads what pricing kernels of `kinds` needs and is not read yet: a
  /// model built with CostModelOptions::pricedKinds reads the rest when a
  /// caller prepares for it (the ml model, its other boosters). Safe to call
  /// from several threads and while others estimate; estimate() itself
  /// never reads files, so a kind not prepared falls through.
  virtual llvm::Error prepare(llvm::ArrayRef<KernelKind> kinds) {
    (void)kinds;
    return llvm::Error::success();
  }
};

/// Options every model may read.
struct CostModelOptions {
  /// Fraction of the peak FLOP/s and bandwidth a tuned kernel achieves
  /// (roofline and heuristic models).
  double computeEfficiency = 0.7;
  double memoryEfficiency = 0.8;
  /// Paths for the measured and learned models.
  std::string databasePath;
  std::string mlModelDir;
  /// Tile model coefficients (JSON written by perf-train); empty: the
  /// mlModelDir's tile.json when present, else the built-in fit.
  std::string tileParamsPath;
  /// Rows of output a CTA of the batched embedding kernel computes (the
  /// `rows_per_block` kernel argument of the DLRM paper, Sec. III-B1).
  unsigned embeddingRowsPerBlock = 4;
  /// The kernel kinds priced from the start, when the caller knows them:
  /// models skip loading what prices only other kinds (ml reads only their
  /// boosters; an empty set, none), and kernels of other kinds fall through
  /// them until KernelCostModel::prepare reads theirs. Unset: every kind.
  std::optional<std::set<KernelKind>> pricedKinds;
};

/// Which model of a stack prices each kernel kind and number type first on
/// GPUs a model folder was not trained on: the one whose prices of GPUs held
/// out of training were closest to their measurements (selection.json,
/// written by `perf-train --select`). On the training GPUs the stack's own
/// order stands (the learned models are fitted on them).
struct ModelSelection {
  static constexpr int kVersion = 1;
  using Key = std::pair<std::string, std::string>; // kind, number type
  std::set<std::string> trainedDevices;
  std::map<Key, std::string> first;
  /// Per key and candidate model: the mean over held-out GPUs of its GMAE.
  std::map<Key, std::map<std::string, double>> heldOutGmae;

  /// The choice for kinds whose models could not be held out (a folder
  /// trained on one GPU): on other GPUs, only models that need no per-GPU
  /// fit or whose fits passed a held-out check answer (the calibrated
  /// roofline's "*" fits, the heuristic, the roofline); ml and tile, fitted
  /// on the training GPU alone, do not.
  static constexpr const char *kAnalyticOnly = "analytic";
  /// Whether `model` (a name, or a combination a*b) learns from the
  /// training GPUs' rows without a held-out check of its own.
  static bool fittedWithoutHoldout(llvm::StringRef model);

  /// The model to try first for `kernel` on `gpu`, or "" for the order.
  llvm::StringRef choose(const KernelDesc &kernel, const GpuSpec &gpu) const;
  llvm::json::Value toJson() const;
  /// Reads what toJson wrote; errors name `path` and the entry.
  static llvm::Expected<ModelSelection> load(llvm::StringRef path);
};

/// Tries models in order; the first that prices a kernel wins.
class KernelCostStack {
public:
  void add(std::unique_ptr<KernelCostModel> model);
  /// Routes kernels on GPUs outside the selection's training set to the
  /// selected model first (the others follow in order).
  void setSelection(ModelSelection selection) {
    this->selection = std::move(selection);
  }
  /// Never fails: the caller must end the stack with a model that always
  /// answers (roofline) to be sure of a price; otherwise latency 0 and model
  /// "none" come back.
  KernelCost estimate(const KernelDesc &kernel, const GpuSpec &gpu) const;
  bool empty() const { return models.empty(); }
  /// Names of the models in the order they are tried.
  std::vector<std::string> modelNames() const;
  /// The misses of every model in the stack (see KernelCostModel::misses).
  std::vector<KernelCostMiss> misses() const;
  /// Prepares every model of the stack for `kinds`
  /// (KernelCostModel::prepare); the first error.
  llvm::Error prepare(llvm::ArrayRef<KernelKind> kinds) const;

private:
  std::vector<std::unique_ptr<KernelCostModel>> models;
  ModelSelection selection;
};

/// The stack `perf-opt --estimate` uses on a model folder when no model is
/// named: learned models first, the calibrated roofline for what they do
/// not cover (tensor-core GEMMs), the analytic models last.
constexpr const char *kDefaultModelStack =
    "ml,tile,tensorcore,flash,calibrated,heuristic,roofline";
/// What `perf-opt --estimate` asks for with no model flag: that stack,
/// routed by the folder's held-out evidence (ModelSelection).
constexpr const char *kAutoModelStack = "auto";

/// The model folder the default stack reads when none is given:
/// $PERF_MODEL_DIR (empty or "none": no folder), else the one installed
/// under `installPrefix` (<prefix>/share/perf/models/neusight), else the
/// source tree's data/models/neusight (a build that is not installed), else
/// none (empty). Tools pass the prefix they run from.
std::string defaultModelDir(llvm::StringRef installPrefix);

/// Builds a model by name: roofline, heuristic, calibrated, tile, ml, db.
/// The db model needs options.databasePath, the ml and calibrated models
/// options.mlModelDir.
llvm::Expected<std::unique_ptr<KernelCostModel>>
createKernelCostModel(llvm::StringRef name, const CostModelOptions &options);

/// Builds a stack from a comma-separated list of names. "auto" is
/// kDefaultModelStack with the model folder's selection.json, if any.
llvm::Expected<KernelCostStack>
createKernelCostStack(llvm::StringRef names, const CostModelOptions &options);

} // namespace perf

#endif // PERF_COSTMODEL_KERNELCOSTMODEL_H
