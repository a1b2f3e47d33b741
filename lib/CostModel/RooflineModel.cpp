//===- RooflineModel.cpp --------------------------------------------------===//

#include "perf/CostModel/RooflineModel.h"
#include "perf/CostModel/KernelMeasurements.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>

using namespace perf;

std::pair<double, double> perf::rooflineRates(const KernelDesc &kernel,
                                              const GpuSpec &gpu) {
  double bandwidth = gpu.memBandwidth;
  if (kernel.kind == KernelKind::Memcpy &&
      kernel.copyKind != MemcpyKind::DeviceToDevice)
    bandwidth = gpu.pcieBandwidth > 0 ? gpu.pcieBandwidth : gpu.memBandwidth;
  return {gpu.peakFlops(kernel.dtype, kernel.tensorCores) *
              kernel.tensorCoreAlignmentFactor(),
          bandwidth};
}

std::pair<double, double> perf::rooflineSeconds(const KernelDesc &kernel,
                                                const GpuSpec &gpu) {
  auto [peak, bandwidth] = rooflineRates(kernel, gpu);
  return {peak > 0 ? kernel.totalFlops() / peak : 0,
          bandwidth > 0 ? kernel.totalBytes() / bandwidth : 0};
}

std::optional<KernelCost> RooflineModel::estimate(const KernelDesc &kernel,
                                                  const GpuSpec &gpu) const {
  auto [peak, bandwidth] = rooflineRates(kernel, gpu);
  double computeS =
      peak > 0 ? kernel.totalFlops() / (peak * computeEfficiency) : 0;
  double memoryS =
      bandwidth > 0 ? kernel.totalBytes() / (bandwidth * memoryEfficiency) : 0;
  KernelCost cost;
  cost.latencyUs = std::max(computeS, memoryS) * 1e6;
  cost.model = "roofline";
  cost.computeBound = computeS > memoryS;
  return cost;
}

std::string perf::calibrationKindOf(const KernelDesc &kernel) {
  std::string kind = kernelKindName(kernel.kind).str();
  if (llvm::StringRef(kernel.op).contains("::"))
    kind += ":" + kernel.op;
  return kind;
}

const RooflineFit *RooflineCalibration::find(const KernelDesc &kernel,
                                             const GpuSpec &gpu) const {
  std::vector<std::string> kinds = {calibrationKindOf(kernel)};
  if (kinds.front() != kernelKindName(kernel.kind))
    kinds.push_back(kernelKindName(kernel.kind).str());
  std::vector<std::string> types = {numberTypeKey(kernel)};
  // BF16 runs on the FP16 pipes at the FP16 rate (tensor cores and CUDA
  // cores alike), so an FP16 fit stands for it when BF16 was not measured.
  if (kernel.dtype == DType::BF16) {
    KernelDesc half = kernel;
    half.dtype = DType::F16;
    types.push_back(numberTypeKey(half));
  }
  for (const std::string &kind : kinds)
    for (const std::string &device : {gpu.name, std::string(kAnyDevice)})
      for (const std::string &type : types) {
        auto it = fits.find({device, kind, type});
        if (it != fits.end())
          return &it->second;
      }
  return nullptr;
}

llvm::json::Value RooflineCalibration::toJson() const {
  llvm::json::Array list;
  for (const auto &[key, fit] : fits)
    list.push_back(
        llvm::json::Object{{"device", std::get<0>(key)},
                           {"kind", std::get<1>(key)},
                           {"type", std::get<2>(key)},
                           {"compute_efficiency", fit.computeEfficiency},
                           {"memory_efficiency", fit.memoryEfficiency},
                           {"fixed_us", fit.fixedUs},
                           {"launch_us", fit.launchUs},
                           {"rows", int64_t(fit.rows)},
                           {"gmae", fit.gmae},
                           {"mape", fit.mape},
                           {"held_out_gmae", fit.heldOutGmae},
                           {"roofline_gmae", fit.rooflineGmae}});
  return llvm::json::Object{{"version", kVersion}, {"fits", std::move(list)}};
}

llvm::Expected<RooflineCalibration>
RooflineCalibration::load(llvm::StringRef path) {
  auto value = readVersionedJsonFile(path, "roofline calibration", kVersion,
                                     "rerun perf-train");
  if (!value)
    return value.takeError();
  const llvm::json::Object *root = value->getAsObject();
  const llvm::json::Array *list = root->getArray("fits");
  if (!list)
    return llvm::createStringError(path + ": missing array 'fits'");
  RooflineCalibration out;
  for (auto [i, entry] : llvm::enumerate(*list)) {
    auto bad = [&](llvm::StringRef what) {
      return llvm::createStringError(
          llvm::formatv("{0}: fits[{1}]: {2}", path, i, what).str());
    };
    const llvm::json::Object *o = entry.getAsObject();
    if (!o)
      return bad("expected an object");
    auto device = o->getString("device");
    auto kind = o->getString("kind");
    auto type = o->getString("type");
    if (!device || !kind || !type)
      return bad("needs strings 'device', 'kind' and 'type'");
    RooflineFit fit;
    auto number = [&](llvm::StringRef name, double &into, double lo,
                      double hi) -> bool {
      std::optional<double> v = o->getNumber(name);
      if (!v || !(*v >= lo && *v <= hi))
        return false;
      into = *v;
      return true;
    };
    if (!number("compute_efficiency", fit.computeEfficiency, 1e-6, 1) ||
        !number("memory_efficiency", fit.memoryEfficiency, 1e-6, 1))
      return bad("efficiencies must be numbers in (0, 1]");
    if (!number("fixed_us", fit.fixedUs, 0, 1e9) ||
        !number("launch_us", fit.launchUs, 0, 1e9))
      return bad("'fixed_us' and 'launch_us' must be non-negative numbers");
    double rows = 0;
    number("rows", rows, 0, 1e18);
    fit.rows = size_t(rows);
    number("gmae", fit.gmae, 0, 1e9);
    number("mape", fit.mape, 0, 1e9);
    number("held_out_gmae", fit.heldOutGmae, 0, 1e9);
    number("roofline_gmae", fit.rooflineGmae, 0, 1e9);
    out.add({device->str(), kind->str(), type->str()}, fit);
  }
  return out;
}

std::optional<KernelCost>
CalibratedRooflineModel::estimate(const KernelDesc &kernel,
                                  const GpuSpec &gpu) const {
  const RooflineFit *fit = calibration.find(kernel, gpu);
  if (!fit)
    return std::nullopt;
  auto [compute, memory] = rooflineSeconds(kernel, gpu);
  double computeS = compute / fit->computeEfficiency;
  double memoryS = memory / fit->memoryEfficiency;
  double isolatedUs = fit->fixedUs + std::max(computeS, memoryS) * 1e6;
  KernelCost cost = splitIsolatedCost(isolatedUs, fit->launchUs);
  cost.model = "calibrated";
  cost.computeBound = computeS > memoryS;
  return cost;
}
