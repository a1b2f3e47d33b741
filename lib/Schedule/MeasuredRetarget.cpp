//===- MeasuredRetarget.cpp - A measured kernel time on another GPU -------===//

#include "perf/Schedule/MeasuredRetarget.h"
#include "perf/CostModel/RooflineModel.h"
#include "perf/Support/InputFile.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cmath>

using namespace perf;

llvm::StringRef perf::retargetMethodName(RetargetMethod method) {
  switch (method) {
  case RetargetMethod::StackRatio:
    return "ratio";
  case RetargetMethod::ShrunkRatio:
    return "shrunk";
  case RetargetMethod::WaveScaling:
    return "wave";
  }
  llvm_unreachable("retarget method");
}

std::optional<RetargetMethod> perf::parseRetargetMethod(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<RetargetMethod>>(name)
      .Case("ratio", RetargetMethod::StackRatio)
      .Case("shrunk", RetargetMethod::ShrunkRatio)
      .Case("wave", RetargetMethod::WaveScaling)
      .Default(std::nullopt);
}

double perf::memoryBoundedness(const KernelDesc &kernel,
                               const GpuSpec &target) {
  double flops = kernel.totalFlops(), bytes = kernel.totalBytes();
  if (flops <= 0)
    return 1;
  if (bytes <= 0)
    return 0;
  auto [peak, bandwidth] = rooflineRates(kernel, target);
  double ridge = peak / bandwidth;
  double intensity = flops / bytes;
  if (intensity > ridge)
    return 0.5 * ridge / intensity;
  return 1 - 0.5 * intensity / ridge;
}

double perf::waveScalingFactor(const KernelDesc &kernel, const GpuSpec &source,
                               const GpuSpec &target) {
  double gamma = memoryBoundedness(kernel, target);
  double bandwidthFactor = rooflineRates(kernel, source).second /
                           rooflineRates(kernel, target).second;
  // SMs times clock is how fast the target works through the waves of a
  // compute-bound grid; a device file without a clock falls back on the peak.
  double computeFactor = source.clockMHz > 0 && target.clockMHz > 0
                             ? (source.clockMHz * source.numSMs) /
                                   (target.clockMHz * target.numSMs)
                             : rooflineRates(kernel, source).first /
                                   rooflineRates(kernel, target).first;
  return std::pow(bandwidthFactor, gamma) * std::pow(computeFactor, 1 - gamma);
}

llvm::Expected<std::map<KernelKind, double>>
perf::loadResidualWeights(llvm::StringRef path) {
  llvm::Expected<llvm::json::Value> json = readJsonFile(path);
  if (!json)
    return json.takeError();
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError(path + ": " + message);
  };
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Object *weights =
      root ? root->getObject("residual_weight") : nullptr;
  if (!weights)
    return fail("expected an object with a \"residual_weight\" object");
  std::map<KernelKind, double> out;
  for (const auto &[name, value] : *weights) {
    std::optional<KernelKind> kind = parseKernelKind(name);
    if (!kind)
      return fail("residual_weight." + llvm::StringRef(name) +
                  ": not a kernel kind");
    std::optional<double> w = value.getAsNumber();
    if (!w || !std::isfinite(*w) || *w < 0 || *w > 1)
      return fail("residual_weight." + llvm::StringRef(name) +
                  ": must be a number in [0, 1]");
    out[*kind] = *w;
  }
  return out;
}

llvm::Expected<MeasuredRetarget>
MeasuredRetarget::create(RetargetMethod method, llvm::StringRef models,
                         const CostModelOptions &options) {
  MeasuredRetarget retarget(method, options);
  if (method == RetargetMethod::WaveScaling)
    return std::move(retarget);
  llvm::Expected<KernelCostStack> stack =
      createKernelCostStack(models, options);
  if (!stack)
    return stack.takeError();
  retarget.stack = std::make_unique<KernelCostStack>(std::move(*stack));
  if (method != RetargetMethod::ShrunkRatio)
    return std::move(retarget);
  llvm::SmallString<256> path(options.mlModelDir);
  llvm::sys::path::append(path, "retarget.json");
  if (options.mlModelDir.empty() || !llvm::sys::fs::exists(path)) {
    // No weights: every kind would move by the ratio, and says so.
    retarget.method = RetargetMethod::StackRatio;
    return std::move(retarget);
  }
  auto weights = loadResidualWeights(path);
  if (!weights)
    return weights.takeError();
  retarget.residualWeights = std::move(*weights);
  return std::move(retarget);
}

const KernelCostModel *MeasuredRetarget::model(llvm::StringRef name) const {
  auto it = models.find(name);
  if (it != models.end())
    return it->second.get();
  llvm::Expected<std::unique_ptr<KernelCostModel>> built =
      createKernelCostModel(name, options);
  std::unique_ptr<KernelCostModel> owned;
  if (built)
    owned = std::move(*built);
  else
    llvm::consumeError(built.takeError());
  return (models[name] = std::move(owned)).get();
}

RetargetedLatency MeasuredRetarget::retarget(const KernelDesc &kernel,
                                             double measuredUs,
                                             const GpuSpec &source,
                                             const GpuSpec &target) const {
  RetargetedLatency kept{measuredUs, ""};
  // A kernel known only by its time (a library kernel no rule describes):
  // no model can price it, so it moves as a memory-bound kernel does,
  // with the memory bandwidth (Habitat's scaling at gamma 1).
  if (kernel.totalFlops() <= 0 && kernel.totalBytes() <= 0)
    return source.memBandwidth > 0 && target.memBandwidth > 0
               ? RetargetedLatency{measuredUs * source.memBandwidth /
                                       target.memBandwidth,
                                   "wave"}
               : kept;
  if (method == RetargetMethod::WaveScaling)
    return {measuredUs * waveScalingFactor(kernel, source, target), "wave"};

  KernelCost onTarget = stack->estimate(kernel, target);
  std::optional<KernelCost> onSource = stack->estimate(kernel, source);
  if (onTarget.model == "none" || onSource->model == "none")
    return kept;
  // Two models' prices do not make a ratio: where the stack picked another
  // model on the source, the target's model prices it there if it can.
  if (onSource->model != onTarget.model)
    if (const KernelCostModel *same = model(onTarget.model))
      if (std::optional<KernelCost> sameModel = same->estimate(kernel, source))
        onSource = sameModel;
  // A kernel on a stream takes at least kStreamedKernelUs, whatever a model
  // without a fixed cost says of a tiny one: the floor keeps the ratio of
  // two near-zero prices from scaling a launch-bound time.
  double targetUs = std::max(onTarget.latencyUs, kStreamedKernelUs);
  double sourceUs = std::max(onSource->latencyUs, kStreamedKernelUs);
  if (method == RetargetMethod::ShrunkRatio) {
    auto weight = residualWeights.find(kernel.kind);
    if (weight != residualWeights.end())
      return {targetUs * std::pow(measuredUs / sourceUs, weight->second),
              onTarget.model};
  }
  return {measuredUs * targetUs / sourceUs, onTarget.model};
}
