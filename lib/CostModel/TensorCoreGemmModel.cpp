//===- TensorCoreGemmModel.cpp - GEMMs on tensor cores --------------------===//

#include "perf/CostModel/TensorCoreGemmModel.h"
#include "perf/CostModel/ParameterFit.h"
#include "perf/CostModel/RooflineModel.h"
#include "perf/Support/InputFile.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>

using namespace perf;

static const char *typeKey(DType dtype) {
  switch (dtype) {
  case DType::TF32:
    return "tf32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F8:
    return "f8";
  default:
    return nullptr;
  }
}

double TensorCoreGemmParams::computeEfficiencyOf(DType dtype) const {
  const char *key = typeKey(dtype);
  if (!key)
    return 0;
  auto it = computeEfficiency.find(key);
  if (it == computeEfficiency.end())
    it = computeEfficiency.find("bf16");
  return it == computeEfficiency.end() ? 0 : it->second;
}

bool perf::isTensorCoreGemm(const KernelDesc &kernel) {
  return kernel.kind == KernelKind::Gemm && kernel.tensorCores &&
         typeKey(kernel.dtype) && !kernel.hasWorkOverride();
}

/// The model's time of `kernel` on `gpu` under `p`, 0 when it has no peak.
static double gemmTimeUs(const KernelDesc &kernel, const GpuSpec &gpu,
                         const TensorCoreGemmParams &p) {
  auto [peak, bandwidth] = rooflineRates(kernel, gpu);
  double efficiency = p.computeEfficiencyOf(kernel.dtype);
  if (!(peak > 0) || !(bandwidth > 0) || !(efficiency > 0))
    return 0;
  double b = static_cast<double>(std::max<int64_t>(kernel.batch, 1));
  double outputBytes = dtypeBytes(kernel.dtype) * b * kernel.m * kernel.n;
  double streamBw = bandwidth * p.memoryEfficiency;
  double computeS = kernel.totalFlops() / (peak * efficiency) +
                    p.epilogueWeight * outputBytes / streamBw;
  double memoryS = kernel.totalBytes() / streamBw;
  return p.overheadUs + std::max(computeS, memoryS) * 1e6;
}

std::optional<KernelCost>
TensorCoreGemmModel::estimate(const KernelDesc &kernel,
                              const GpuSpec &gpu) const {
  if (!isTensorCoreGemm(kernel))
    return std::nullopt;
  double us = gemmTimeUs(kernel, gpu, params);
  if (!(us > 0))
    return std::nullopt;
  KernelCost cost;
  cost.latencyUs = us;
  cost.model = "tensorcore";
  auto [compute, memory] = rooflineSeconds(kernel, gpu);
  cost.computeBound = compute > memory;
  return cost;
}

/// Whether a measured GEMM ran the libraries' fallback kernels for operands
/// whose rows are not 16-byte aligned (cuBLAS's Turing-era
/// cutlass_75_..._align1/align2 on Hopper): the alignment factor prices
/// those (KernelDesc::tensorCoreAlignmentFactor), not the main loop's
/// efficiency, so they stay out of its fit. A database row names its
/// operands in perf-bench's column-major order, so the factor alone does
/// not find them all; the kernel's name does.
static bool ranOnFallbackKernel(const KernelDesc &kernel) {
  llvm::StringRef name = kernel.name;
  return kernel.tensorCoreAlignmentFactor() < 1 || name.contains("align1") ||
         name.contains("align2") || name.contains("cutlass_75");
}

TensorCoreGemmParams perf::fitTensorCoreGemm(
    llvm::ArrayRef<KernelMeasurement> rows,
    llvm::function_ref<const GpuSpec *(llvm::StringRef)> deviceOf,
    const TensorCoreGemmParams &start) {
  struct Row {
    const KernelDesc *kernel;
    const GpuSpec *gpu;
    double us;
  };
  std::vector<Row> used;
  std::map<std::string, int64_t> counts;
  std::set<std::string> devices;
  for (const KernelMeasurement &m : rows) {
    if (!isTensorCoreGemm(m.kernel) || !(m.latencyUs > 0) ||
        ranOnFallbackKernel(m.kernel))
      continue;
    const GpuSpec *gpu = deviceOf(m.device);
    if (!gpu)
      continue;
    used.push_back({&m.kernel, gpu, m.latencyUs});
    ++counts[typeKey(m.kernel.dtype)];
    devices.insert(gpu->name);
  }
  TensorCoreGemmParams out = start;
  if (used.empty())
    return out;
  // The parameters searched: t0, e_m, w, then one e_c per number type seen.
  std::vector<std::string> types;
  for (const auto &[type, n] : counts)
    types.push_back(type);
  std::vector<FitParameter> ranges = {{start.overheadUs, 0.0, 20.0},
                                      {start.memoryEfficiency, 0.3, 1.0},
                                      {start.epilogueWeight, 0.0, 3.0}};
  for (const std::string &type : types) {
    auto it = start.computeEfficiency.find(type);
    double e = it != start.computeEfficiency.end() ? it->second : 0.7;
    ranges.push_back({e, 0.1, 1.0});
  }
  std::vector<double> measured, predicted(used.size());
  for (const Row &r : used)
    measured.push_back(r.us);
  auto paramsOf = [&](llvm::ArrayRef<double> x) {
    TensorCoreGemmParams p = start;
    p.overheadUs = x[0];
    p.memoryEfficiency = x[1];
    p.epilogueWeight = x[2];
    for (size_t i = 0; i < types.size(); ++i)
      p.computeEfficiency[types[i]] = x[3 + i];
    return p;
  };
  std::vector<double> best = minimizeWithin(
      ranges,
      [&](llvm::ArrayRef<double> x) {
        TensorCoreGemmParams p = paramsOf(x);
        for (size_t i = 0; i < used.size(); ++i)
          predicted[i] = gemmTimeUs(*used[i].kernel, *used[i].gpu, p);
        return meanSquaredLogError(predicted, measured);
      },
      4000);
  out = paramsOf(best);
  out.rows = counts;
  out.devices.assign(devices.begin(), devices.end());
  return out;
}

llvm::json::Value TensorCoreGemmParams::toJson() const {
  llvm::json::Object efficiency, rowCounts;
  for (const auto &[type, e] : computeEfficiency)
    efficiency[type] = e;
  for (const auto &[type, n] : rows)
    rowCounts[type] = n;
  llvm::json::Array gpus;
  for (const std::string &d : devices)
    gpus.push_back(d);
  return llvm::json::Object{{"version", kVersion},
                            {"overhead_us", overheadUs},
                            {"memory_efficiency", memoryEfficiency},
                            {"epilogue_weight", epilogueWeight},
                            {"compute_efficiency", std::move(efficiency)},
                            {"rows", std::move(rowCounts)},
                            {"devices", std::move(gpus)}};
}

llvm::Expected<TensorCoreGemmParams>
TensorCoreGemmParams::load(llvm::StringRef path) {
  auto value = readVersionedJsonFile(path, "tensor-core GEMM fit", kVersion,
                                     "rerun perf-train");
  if (!value)
    return value.takeError();
  const llvm::json::Object *root = value->getAsObject();
  auto bad = [&](const std::string &what) {
    return llvm::createStringError(llvm::formatv("{0}: {1}", path, what).str());
  };
  TensorCoreGemmParams p;
  auto number = [&](llvm::StringRef key, double &into, double lo, double hi) {
    std::optional<double> v = root->getNumber(key);
    if (!v || !(*v >= lo && *v <= hi))
      return false;
    into = *v;
    return true;
  };
  if (!number("overhead_us", p.overheadUs, 0, 1e6) ||
      !number("memory_efficiency", p.memoryEfficiency, 1e-6, 1) ||
      !number("epilogue_weight", p.epilogueWeight, 0, 100))
    return bad("'overhead_us', 'memory_efficiency' (in (0, 1]) and "
               "'epilogue_weight' must be non-negative numbers");
  const llvm::json::Object *efficiency = root->getObject("compute_efficiency");
  if (!efficiency || efficiency->empty())
    return bad("'compute_efficiency' must map number types to fractions");
  p.computeEfficiency.clear();
  for (const auto &[type, v] : *efficiency) {
    std::optional<double> e = v.getAsNumber();
    if (!e || !(*e > 0 && *e <= 1))
      return bad("'compute_efficiency." + type.str() +
                 "' must be a number in (0, 1]");
    p.computeEfficiency[type.str()] = *e;
  }
  if (const llvm::json::Object *counts = root->getObject("rows"))
    for (const auto &[type, v] : *counts)
      if (std::optional<int64_t> n = v.getAsInteger())
        p.rows[type.str()] = *n;
  if (const llvm::json::Array *gpus = root->getArray("devices"))
    for (const llvm::json::Value &g : *gpus)
      if (std::optional<llvm::StringRef> s = g.getAsString())
        p.devices.push_back(s->str());
  return p;
}
