//===- MeasuredRetarget.h - A measured kernel time on another GPU -*- C++ -*-=//
//
// A kernel measured on one GPU (a trace, a per-node profile) priced on
// another: its measured time times how much slower or faster the target runs
// it. Two ways to say how much:
// - the ratio of one cost model stack's prices of the kernel on the two GPUs
//   (the model that prices it on the target prices it on the source too, so
//   the ratio never mixes two models' errors);
// - the same ratio with the source's deviation from the model shrunk: the
//   target's price times (measured / source price)^w, w per kernel kind,
//   the regression slope of one GPU's log deviation from the model on
//   another's, fitted on kernel measurements (retarget.json in the model
//   folder, bench/kernels/residual_transfer.py). w = 1 is the ratio; w near
//   0 says a GPU's deviation from the model at a shape tells nothing about
//   another GPU's, and the target's price is the better guess;
// - Habitat's wave scaling (Yu et al., "Habitat: A Runtime-Based
//   Computational Performance Predictor for Deep Neural Network Training",
//   USENIX ATC 2021, Sec. 3.3), which needs no model: the memory-bound share
//   of the time scales with memory bandwidth, the compute-bound share with
//   clock and SM count.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SCHEDULE_MEASUREDRETARGET_H
#define PERF_SCHEDULE_MEASUREDRETARGET_H

#include "perf/CostModel/KernelCostModel.h"
#include "perf/Support/GpuSpec.h"
#include "perf/Support/KernelDesc.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace perf {

enum class RetargetMethod {
  /// measured x stack(target) / stack(source).
  StackRatio,
  /// stack(target) x (measured / stack(source))^w, w per kernel kind from
  /// the model folder's retarget.json (1 for kinds it does not list).
  ShrunkRatio,
  /// measured x Habitat's wave scaling factor.
  WaveScaling,
};

/// "ratio", "shrunk" or "wave".
llvm::StringRef retargetMethodName(RetargetMethod method);
std::optional<RetargetMethod> parseRetargetMethod(llvm::StringRef name);

/// Habitat's memory-boundedness gamma of `kernel` on `target`, in [0, 1]:
/// with x its arithmetic intensity (FLOP per byte) and R the target's ridge
/// point (peak FLOP/s over bandwidth), 1 - x / (2R) for x <= R and
/// R / (2x) above. A kernel without FLOPs is memory-bound (1), one without
/// bytes compute-bound (0).
double memoryBoundedness(const KernelDesc &kernel, const GpuSpec &target);

/// Target time over source time by wave scaling:
/// (bw_s / bw_t)^gamma * (clock_s / clock_t * SMs_s / SMs_t)^(1 - gamma).
/// The SM ratio stands for the ratio of waves, which it is for a grid of
/// many waves at the same occupancy (kernels do not carry their grid here).
double waveScalingFactor(const KernelDesc &kernel, const GpuSpec &source,
                         const GpuSpec &target);

/// The per-kind weights of `ShrunkRatio`: `residual_weight` of the JSON file
/// at `path` ({"residual_weight": {"gemm": 0.05, ...}}), each in [0, 1].
/// Errors name the file and key.
llvm::Expected<std::map<KernelKind, double>>
loadResidualWeights(llvm::StringRef path);

struct RetargetedLatency {
  double latencyUs = 0;
  /// What gave the factor: a cost model's name ("ml", "roofline"...) or
  /// "wave"; empty when nothing could price the kernel on both GPUs and the
  /// measured time was kept.
  std::string model;
};

/// Moves measured kernel times from one GPU to another.
class MeasuredRetarget {
public:
  /// `models` and `options` as for createKernelCostStack (unused by wave
  /// scaling). ShrunkRatio reads retarget.json of `options.mlModelDir`;
  /// without one it is the ratio (getMethod() says StackRatio).
  static llvm::Expected<MeasuredRetarget>
  create(RetargetMethod method, llvm::StringRef models,
         const CostModelOptions &options);

  /// `measuredUs` of `kernel` measured on `source`, priced on `target`.
  /// Kernels without FLOPs or bytes (an opaque measured kernel) keep their
  /// time, as do kernels no model of the stack prices.
  RetargetedLatency retarget(const KernelDesc &kernel, double measuredUs,
                             const GpuSpec &source,
                             const GpuSpec &target) const;

  RetargetMethod getMethod() const { return method; }

private:
  MeasuredRetarget(RetargetMethod method, CostModelOptions options)
      : method(method), options(std::move(options)) {}
  /// The stack's model named `name`, built on first use.
  const KernelCostModel *model(llvm::StringRef name) const;

  RetargetMethod method;
  CostModelOptions options;
  /// ShrunkRatio's w per kind (absent: 1).
  std::map<KernelKind, double> residualWeights;
  std::unique_ptr<KernelCostStack> stack;
  mutable llvm::StringMap<std::unique_ptr<KernelCostModel>> models;
};

} // namespace perf

#endif // PERF_SCHEDULE_MEASUREDRETARGET_H
