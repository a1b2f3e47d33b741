//===- KernelCostModel.cpp - Model stack and factory ----------------------===//

#include "perf/CostModel/KernelCostModel.h"
#include "perf/CostModel/AttentionModel.h"
#include "perf/CostModel/DbModel.h"
#include "perf/CostModel/HeuristicModel.h"
#include "perf/CostModel/MlModel.h"
#include "perf/CostModel/RooflineModel.h"
#include "perf/CostModel/TensorCoreGemmModel.h"
#include "perf/CostModel/TileModel.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cmath>
#include <cstdlib>

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

llvm::StringRef ModelSelection::choose(const KernelDesc &kernel,
                                       const GpuSpec &gpu) const {
  if (first.empty() || trainedDevices.count(gpu.name))
    return "";
  std::string kind = kernelKindName(kernel.kind).str();
  auto it = first.find({kind, numberTypeKey(kernel)});
  if (it == first.end() && kernel.dtype == DType::BF16) {
    // BF16 runs on the FP16 pipes: the FP16 evidence stands for it, as in
    // the calibrated roofline.
    KernelDesc half = kernel;
    half.dtype = DType::F16;
    it = first.find({kind, numberTypeKey(half)});
  }
  return it == first.end() ? "" : llvm::StringRef(it->second);
}

llvm::json::Value ModelSelection::toJson() const {
  llvm::json::Array choices;
  for (const auto &[key, model] : first) {
    llvm::json::Object gmae;
    auto scores = heldOutGmae.find(key);
    if (scores != heldOutGmae.end())
      for (const auto &[candidate, value] : scores->second)
        gmae[candidate] = value;
    choices.push_back(llvm::json::Object{{"kind", key.first},
                                         {"type", key.second},
                                         {"model", model},
                                         {"held_out_gmae", std::move(gmae)}});
  }
  return llvm::json::Object{
      {"version", kVersion},
      {"trained_devices", llvm::json::Array(std::vector<std::string>(
                              trainedDevices.begin(), trainedDevices.end()))},
      {"choices", std::move(choices)}};
}

llvm::Expected<ModelSelection> ModelSelection::load(llvm::StringRef path) {
  auto value = readVersionedJsonFile(path, "model selection", kVersion,
                                     "rerun perf-train --select");
  if (!value)
    return value.takeError();
  const llvm::json::Object *root = value->getAsObject();
  const llvm::json::Array *devices = root->getArray("trained_devices");
  const llvm::json::Array *choices = root->getArray("choices");
  if (!devices || !choices)
    return llvm::createStringError(
        path + ": needs arrays 'trained_devices' and 'choices'");
  ModelSelection out;
  for (const llvm::json::Value &d : *devices) {
    std::optional<llvm::StringRef> name = d.getAsString();
    if (!name)
      return llvm::createStringError(path +
                                     ": 'trained_devices' holds non-strings");
    out.trainedDevices.insert(name->str());
  }
  for (auto [i, entry] : llvm::enumerate(*choices)) {
    const llvm::json::Object *o = entry.getAsObject();
    std::optional<llvm::StringRef> kind, type, model;
    if (o) {
      kind = o->getString("kind");
      type = o->getString("type");
      model = o->getString("model");
    }
    if (!kind || !type || !model)
      return llvm::createStringError(
          path + ": choices[" + std::to_string(i) +
          "]: needs strings 'kind', 'type' and 'model'");
    ModelSelection::Key key{kind->str(), type->str()};
    out.first[key] = model->str();
    if (const llvm::json::Object *gmae = o->getObject("held_out_gmae"))
      for (const auto &[candidate, value] : *gmae)
        if (std::optional<double> v = value.getAsNumber())
          out.heldOutGmae[key][candidate.str()] = *v;
  }
  return out;
}

bool ModelSelection::fittedWithoutHoldout(llvm::StringRef model) {
  llvm::SmallVector<llvm::StringRef> parts;
  model.split(parts, '*');
  return llvm::any_of(parts, [](llvm::StringRef part) {
    part = part.trim();
    return part == "ml" || part == "tile" || part == "db";
  });
}

KernelCost KernelCostStack::estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const {
  llvm::StringRef preferred = selection.choose(kernel, gpu);
  bool analyticOnly = preferred == ModelSelection::kAnalyticOnly;
  if (!preferred.empty() && !analyticOnly)
    for (const auto &model : models)
      if (model->name() == preferred)
        if (std::optional<KernelCost> cost = model->estimate(kernel, gpu))
          return *cost;
  for (const auto &model : models) {
    if (analyticOnly && ModelSelection::fittedWithoutHoldout(model->name()))
      continue;
    if (std::optional<KernelCost> cost = model->estimate(kernel, gpu))
      return *cost;
  }
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

/// Prepares each of `models` for `kinds`; the first error.
static llvm::Error
prepareEach(llvm::ArrayRef<std::unique_ptr<KernelCostModel>> models,
            llvm::ArrayRef<KernelKind> kinds) {
  for (const auto &model : models)
    if (llvm::Error e = model->prepare(kinds))
      return e;
  return llvm::Error::success();
}

llvm::Error KernelCostStack::prepare(llvm::ArrayRef<KernelKind> kinds) const {
  return prepareEach(models, kinds);
}

std::vector<KernelCostMiss> KernelCostStack::misses() const {
  std::vector<KernelCostMiss> all;
  for (const auto &model : models)
    for (KernelCostMiss &miss : model->misses())
      all.push_back(std::move(miss));
  return all;
}

namespace {
/// "a*b": the geometric mean of several models' prices, where all of them
/// price a kernel (two models with errors of opposite sign meet halfway).
/// Streamed and isolated times are each averaged, so the isolation part is
/// what separates the two means.
class GeometricMeanModel : public KernelCostModel {
public:
  GeometricMeanModel(std::string name,
                     std::vector<std::unique_ptr<KernelCostModel>> parts)
      : modelName(std::move(name)), parts(std::move(parts)) {}
  llvm::StringRef name() const override { return modelName; }
  std::optional<KernelCost> estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const override {
    double logStreamed = 0, logIsolated = 0;
    std::optional<KernelCost> first;
    for (const auto &part : parts) {
      std::optional<KernelCost> cost = part->estimate(kernel, gpu);
      if (!cost || !(cost->latencyUs > 0))
        return std::nullopt;
      logStreamed += std::log(cost->latencyUs);
      logIsolated += std::log(cost->latencyUs + cost->isolationUs);
      if (!first)
        first = cost;
    }
    KernelCost cost = *first;
    double n = double(parts.size());
    cost.latencyUs = std::exp(logStreamed / n);
    cost.isolationUs =
        std::max(std::exp(logIsolated / n) - cost.latencyUs, 0.0);
    cost.model = modelName;
    return cost;
  }
  llvm::Error prepare(llvm::ArrayRef<KernelKind> kinds) override {
    return prepareEach(parts, kinds);
  }

private:
  std::string modelName;
  std::vector<std::unique_ptr<KernelCostModel>> parts;
};
} // namespace

llvm::Expected<std::unique_ptr<KernelCostModel>>
perf::createKernelCostModel(llvm::StringRef name,
                            const CostModelOptions &options) {
  if (name.contains('*')) {
    llvm::SmallVector<llvm::StringRef> names;
    name.split(names, '*');
    std::vector<std::unique_ptr<KernelCostModel>> parts;
    for (llvm::StringRef part : names) {
      if (part.trim().empty() || part.trim().contains('*'))
        return llvm::createStringError("malformed model combination '" + name +
                                       "'");
      auto model = createKernelCostModel(part.trim(), options);
      if (!model)
        return model.takeError();
      parts.push_back(std::move(*model));
    }
    return std::make_unique<GeometricMeanModel>(name.str(), std::move(parts));
  }
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
  if (name == "tensorcore" || name == "flash") {
    // The shipped fit is the built-in default; a model folder's file, which
    // perf-train writes beside the others, replaces it.
    llvm::SmallString<256> path(options.mlModelDir);
    llvm::sys::path::append(path, name + ".json");
    bool own = !options.mlModelDir.empty() && llvm::sys::fs::exists(path);
    if (name == "tensorcore") {
      TensorCoreGemmParams params;
      if (own) {
        auto loaded = TensorCoreGemmParams::load(path);
        if (!loaded)
          return loaded.takeError();
        params = std::move(*loaded);
      }
      return std::make_unique<TensorCoreGemmModel>(std::move(params));
    }
    AttentionParams params;
    if (own) {
      auto loaded = AttentionParams::load(path);
      if (!loaded)
        return loaded.takeError();
      params = std::move(*loaded);
    }
    return std::make_unique<AttentionModel>(std::move(params));
  }
  if (name == "calibrated") {
    llvm::SmallString<256> path(options.mlModelDir);
    llvm::sys::path::append(path, "roofline.json");
    if (options.mlModelDir.empty() || !llvm::sys::fs::exists(path))
      return llvm::createStringError(
          "the calibrated model needs a model folder with roofline.json "
          "(perf-train writes it; perf-opt: --estimate=ml-dir=DIR)" +
          (options.mlModelDir.empty()
               ? std::string()
               : "; none in '" + options.mlModelDir + "'"));
    auto calibration = RooflineCalibration::load(path);
    if (!calibration)
      return calibration.takeError();
    return std::make_unique<CalibratedRooflineModel>(std::move(*calibration));
  }
  if (name == "ml") {
    auto model = MlModel::load(options.mlModelDir, options.pricedKinds);
    if (!model)
      return model.takeError();
    return std::unique_ptr<KernelCostModel>(std::move(*model));
  }
  if (name == "db") {
    if (options.databasePath.empty())
      return llvm::createStringError(
          "the db model needs a perf database path (perf-opt: "
          "--estimate=db=FILE or --perf-kernel-cost=\"db=FILE\"; perf-eval: "
          "--db=FILE)");
    auto db = PerfDatabase::openReadOnly(options.databasePath);
    if (!db)
      return db.takeError();
    return std::make_unique<DbModel>(std::move(*db));
  }
  return llvm::createStringError(
      "unknown kernel cost model '" + name +
      "' (known: db, ml, tile, tensorcore, flash, calibrated, heuristic, "
      "roofline, or a "
      "geometric mean of several such as ml*tile)");
}

llvm::Expected<KernelCostStack>
perf::createKernelCostStack(llvm::StringRef names,
                            const CostModelOptions &options) {
  if (names.trim() == kAutoModelStack) {
    // Folders written before the calibrated roofline have no roofline.json:
    // the stack goes without it.
    auto inFolder = [&](llvm::StringRef file) {
      llvm::SmallString<256> path(options.mlModelDir);
      llvm::sys::path::append(path, file);
      return path;
    };
    std::optional<ModelSelection> selection;
    llvm::SmallString<256> path = inFolder("selection.json");
    if (llvm::sys::fs::exists(path)) {
      auto loaded = ModelSelection::load(path);
      if (!loaded)
        return loaded.takeError();
      selection = std::move(*loaded);
    }
    std::string names = kDefaultModelStack;
    if (!llvm::sys::fs::exists(inFolder("roofline.json")))
      names = "ml,tile,tensorcore,flash,heuristic,roofline";
    auto stack = createKernelCostStack(names, options);
    if (!stack)
      return stack.takeError();
    if (selection)
      stack->setSelection(std::move(*selection));
    return stack;
  }
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

std::string perf::defaultModelDir(llvm::StringRef installPrefix) {
  if (const char *env = std::getenv("PERF_MODEL_DIR"))
    return llvm::StringRef(env) == "none" ? std::string() : std::string(env);
  if (!installPrefix.empty()) {
    llvm::SmallString<256> installed(installPrefix);
    llvm::sys::path::append(installed, "share", "perf", "models", "neusight");
    if (llvm::sys::fs::is_directory(installed))
      return std::string(installed);
  }
#ifdef PERF_DEFAULT_MODEL_DIR
  if (llvm::sys::fs::is_directory(PERF_DEFAULT_MODEL_DIR))
    return PERF_DEFAULT_MODEL_DIR;
#endif
  return "";
}
