//===- RooflineModel.h - max(FLOPs/peak, bytes/bandwidth) -------*- C++ -*-===//
//
// The roofline, plain (one efficiency pair for every kernel, the
// hand-checkable path) or calibrated (efficiencies and a fixed cost fitted
// per device, kernel kind and number type on measured kernels).
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_ROOFLINEMODEL_H
#define PERF_COSTMODEL_ROOFLINEMODEL_H

#include "perf/CostModel/KernelCostModel.h"
#include "llvm/Support/JSON.h"
#include <map>
#include <tuple>

namespace perf {

/// Prices any kernel as max(FLOPs / (peak * computeEfficiency),
/// bytes / (bandwidth * memoryEfficiency)). Copies between host and device
/// use the PCIe bandwidth. It always answers, so it ends every stack.
class RooflineModel : public KernelCostModel {
public:
  RooflineModel(double computeEfficiency, double memoryEfficiency)
      : computeEfficiency(computeEfficiency),
        memoryEfficiency(memoryEfficiency) {}
  llvm::StringRef name() const override { return "roofline"; }
  std::optional<KernelCost> estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const override;

private:
  double computeEfficiency;
  double memoryEfficiency;
};

/// The peak FLOP/s of `kernel`'s number type (on tensor cores, the share
/// its operand alignment leaves it: KernelDesc::tensorCoreAlignmentFactor)
/// and the bandwidth it moves its bytes over (PCIe for host copies):
/// {FLOP/s, bytes/s}. The roofline, calibrated, heuristic and tile models
/// all price against it (the ml model keeps the plain peak its boosters
/// were trained on as a feature).
std::pair<double, double> rooflineRates(const KernelDesc &kernel,
                                        const GpuSpec &gpu);

/// The roofline's seconds at 100% of the peak of `kernel`'s number type and
/// of the bandwidth it moves its bytes over: {compute, memory}.
std::pair<double, double> rooflineSeconds(const KernelDesc &kernel,
                                          const GpuSpec &gpu);

/// One roofline fitted to the measured kernels of one device, kind and
/// number type: an isolated kernel takes
///   fixedUs + max(compute s / computeEfficiency, memory s / memoryEfficiency)
/// with both efficiencies in (0, 1], so no price is below the bound.
struct RooflineFit {
  double computeEfficiency = 1;
  double memoryEfficiency = 1;
  /// Fixed cost of the kernel timed alone, in us.
  double fixedUs = 0;
  /// The device's fastest measured kernel (LaunchCalibration): the isolated
  /// launch splitIsolatedCost takes out of a streamed price.
  double launchUs = 0;
  /// Rows fitted on and the fit's error on them (GMAE, MAPE).
  size_t rows = 0;
  double gmae = 0, mape = 0;
  /// A "*" fit's validation: the mean over the devices of the GMAE on each
  /// device of the median fit of the others, and of the plain roofline's.
  double heldOutGmae = 0, rooflineGmae = 0;
};

/// The kind a fit is keyed by: kernelKindName, or for a library's own
/// kernel (an op named "library::name", e.g. vLLM's fused
/// "vllm::silu_and_mul") "kind:library::name". Such kernels run their own
/// code, not the framework's generic loops of their kind, so they are
/// fitted apart and do not skew the kind's fit.
std::string calibrationKindOf(const KernelDesc &kernel);

/// Fits per (device, kind, number type), and per (kind, number type) under
/// the device "*" for GPUs without measurements (the median of the devices'
/// fits, kept only where it beat the plain roofline on every device held
/// out of it).
class RooflineCalibration {
public:
  /// Key: GpuSpec::name or "*", calibrationKindOf, numberTypeKey ("f32",
  /// "f16+tc").
  using Key = std::tuple<std::string, std::string, std::string>;
  static constexpr const char *kAnyDevice = "*";
  static constexpr int kVersion = 1;

  void add(Key key, const RooflineFit &fit) { fits[std::move(key)] = fit; }
  /// The device's own fit, else the "*" fit, else null; a BF16 kernel
  /// without a BF16 fit takes the FP16 one, a library kernel without a fit
  /// of its own the fit of its kind.
  const RooflineFit *find(const KernelDesc &kernel, const GpuSpec &gpu) const;
  const std::map<Key, RooflineFit> &entries() const { return fits; }
  bool empty() const { return fits.empty(); }

  llvm::json::Value toJson() const;
  /// Reads what toJson wrote; errors name `path` and the entry.
  static llvm::Expected<RooflineCalibration> load(llvm::StringRef path);

private:
  std::map<Key, RooflineFit> fits;
};

/// The roofline with the fitted efficiencies and fixed cost of the kernel's
/// device, kind and number type (the model folder's roofline.json, written
/// by perf-train). It declines kernels of a kind and type never fitted.
class CalibratedRooflineModel : public KernelCostModel {
public:
  explicit CalibratedRooflineModel(RooflineCalibration calibration)
      : calibration(std::move(calibration)) {}
  llvm::StringRef name() const override { return "calibrated"; }
  std::optional<KernelCost> estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const override;

private:
  RooflineCalibration calibration;
};

} // namespace perf

#endif // PERF_COSTMODEL_ROOFLINEMODEL_H
