//===- KernelCostModel.cpp - Model stack and factory ----------------------===//

#include "perf/CostModel/KernelCostModel.h"
#include "perf/CostModel/DbModel.h"
#include "perf/CostModel/HeuristicModel.h"
#include "perf/CostModel/MlModel.h"
#include "perf/CostModel/RooflineModel.h"
#include "perf/CostModel/TileModel.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>

using namespace perf;

KernelCostModel::~KernelCostModel() = default;

std::string perf::numberTypeKey(const KernelDesc &k) {
  std::string key = dtypeName(k.dtype).str();
  if (k.tensorCores)
    key += "+tc";
  return key;
}

KernelCost perf::splitIsolatedCost(double isolatedUs, double launchUs) {
  double overlapUs = std::max(launchUs - kStreamedKernelUs, 0.0);
  KernelCost cost;
  cost.latencyUs =
      std::max(isolatedUs - overlapUs, std::min(isolatedUs, kStreamedKernelUs));
  cost.isolationUs = isolatedUs - cost.latencyUs;
  return cost;
}

void KernelCostStack::add(std::unique_ptr<KernelCostModel> model) {
  models.push_back(std::move(model));
}

KernelCost KernelCostStack::estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const {
  for (const auto &model : models)
    if (std::optional<KernelCost> cost = model->estimate(kernel, gpu))
      return *cost;
  KernelCost none;
  none.model = "none";
  return none;
}

std::vector<std::string> KernelCostStack::modelNames() const {
  std::vector<std::string> names;
  for (const auto &model : models)
    names.push_back(model->name().str());
  return names;
}

std::vector<KernelCostMiss> KernelCostStack::misses() const {
  std::vector<KernelCostMiss> all;
  for (const auto &model : models)
    for (KernelCostMiss &miss : model->misses())
      all.push_back(std::move(miss));
  return all;
}

llvm::Expected<std::unique_ptr<KernelCostModel>>
perf::createKernelCostModel(llvm::StringRef name,
                            const CostModelOptions &options) {
  if (name == "roofline")
    return std::make_unique<RooflineModel>(options.computeEfficiency,
                                           options.memoryEfficiency);
  if (name == "heuristic")
    return std::make_unique<HeuristicModel>(options.computeEfficiency,
                                            options.memoryEfficiency,
                                            options.embeddingRowsPerBlock);
  if (name == "tile") {
    // Explicit coefficients, else those perf-train left beside the ml
    // models, else the built-in fit.
    std::string path = options.tileParamsPath;
    if (path.empty() && !options.mlModelDir.empty()) {
      llvm::SmallString<256> candidate(options.mlModelDir);
      llvm::sys::path::append(candidate, "tile.json");
      if (llvm::sys::fs::exists(candidate))
        path = candidate.str().str();
    }
    TileParamsSet params = defaultTileParams();
    if (!path.empty()) {
      auto loaded = loadTileParams(path);
      if (!loaded)
        return loaded.takeError();
      for (auto &[family, p] : *loaded)
        params[family] = p;
    }
    return std::make_unique<TileModel>(std::move(params));
  }
  if (name == "calibrated") {
    llvm::SmallString<256> path(options.mlModelDir);
    llvm::sys::path::append(path, "roofline.json");
    if (options.mlModelDir.empty() || !llvm::sys::fs::exists(path))
      return llvm::createStringError(
          "the calibrated model needs a model folder with roofline.json "
          "(perf-train writes it; perf-opt: --estimate-ml-dir=DIR)" +
          (options.mlModelDir.empty()
               ? std::string()
               : "; none in '" + options.mlModelDir + "'"));
    auto calibration = RooflineCalibration::load(path);
    if (!calibration)
      return calibration.takeError();
    return std::make_unique<CalibratedRooflineModel>(std::move(*calibration));
  }
  if (name == "ml") {
    auto model = MlModel::load(options.mlModelDir);
    if (!model)
      return model.takeError();
    return std::unique_ptr<KernelCostModel>(std::move(*model));
  }
  if (name == "db") {
    if (options.databasePath.empty())
      return llvm::createStringError(
          "the db model needs a perf database path (perf-opt: "
          "--estimate-db=FILE or --perf-kernel-cost=\"db=FILE\"; perf-eval: "
          "--db=FILE)");
    auto db = PerfDatabase::openReadOnly(options.databasePath);
    if (!db)
      return db.takeError();
    return std::make_unique<DbModel>(std::move(*db));
  }
  return llvm::createStringError(
      "unknown kernel cost model '" + name +
      "' (known: db, ml, tile, calibrated, heuristic, roofline)");
}

llvm::Expected<KernelCostStack>
perf::createKernelCostStack(llvm::StringRef names,
                            const CostModelOptions &options) {
  KernelCostStack stack;
  llvm::SmallVector<llvm::StringRef> parts;
  names.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    auto model = createKernelCostModel(part.trim(), options);
    if (!model)
      return model.takeError();
    stack.add(std::move(*model));
  }
  if (stack.empty())
    return llvm::createStringError("empty kernel cost model list");
  return stack;
}
