//===- MlModel.cpp - Learned kernel latency models (XGBoost) --------------===//

#include "perf/CostModel/MlModel.h"
#include "XGBoostLibrary.h"
#include "perf/CostModel/KernelMeasurements.h"
#include "perf/CostModel/RooflineModel.h"
#include "perf/CostModel/TileModel.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>

using namespace perf;

static float lg(double x) {
  return static_cast<float>(std::log1p(std::max(x, 0.0)));
}

double perf::mlBaselineUs(const KernelDesc &k, const GpuSpec &gpu,
                          double launchUs) {
  double peak = gpu.peakFlops(k.dtype, k.tensorCores);
  double bw = gpu.memBandwidth;
  if (k.kind == KernelKind::Memcpy &&
      k.copyKind != MemcpyKind::DeviceToDevice && gpu.pcieBandwidth > 0)
    bw = gpu.pcieBandwidth;
  double computeS = peak > 0 ? k.totalFlops() / peak : 0;
  double memoryS = bw > 0 ? k.totalBytes() / bw : 0;
  // A floor of 1 ns keeps the log target finite for empty kernels.
  return std::max(std::max(computeS, memoryS) * 1e6 + std::max(launchUs, 0.0),
                  1e-3);
}

double perf::mlGemmBaselineUs(const KernelDesc &k, const GpuSpec &gpu,
                              const TileParams &gemm) {
  if (k.kind != KernelKind::Gemm)
    return 0;
  std::optional<TileAnalysis> a = analyzeTiles(k, gpu);
  if (!a)
    return 0;
  double us = tileLatencyUs(*a, gemm);
  return std::isfinite(us) && us > 0 ? us : 0;
}

std::vector<float> perf::mlFeatures(const KernelDesc &k, const GpuSpec &gpu) {
  std::vector<float> f(kMlFeatureCount, 0.0f);
  double peak = gpu.peakFlops(k.dtype, k.tensorCores);
  double flops = k.totalFlops(), bytes = k.totalBytes();
  unsigned i = 0;
  // Slots 0-6: the raw GPU figures (SMs, clock, peak, bandwidth, L2,
  // memory, ridge point), for conv only. With four or five training GPUs the
  // trees use them to tell the GPUs apart and price a held-out GPU like
  // whichever training GPU its figures fall next to: that hurts every other
  // kind (leave-one-out softmax GMAE 30-39% on A100/P100/V100 with them,
  // 15-31% without) but helps conv, whose cuDNN algorithm mix (Winograd,
  // FFT, implicit GEMM) follows the GPU generation (held-out conv mean GMAE
  // 11.4% with them, 13.7% without; docs/accuracy.md). Elsewhere the GPU
  // enters through the GPU-relative features below: roofline times, waves
  // and tile fill on this GPU.
  if (k.kind == KernelKind::Conv2d) {
    f[0] = gpu.numSMs;
    f[1] = static_cast<float>(gpu.clockMHz);
    f[2] = lg(peak / 1e12);
    f[3] = lg(gpu.memBandwidth / 1e9);
    f[4] = lg(gpu.l2Bytes / 1e6);
    f[5] = lg(gpu.memBytes / 1e9);
    f[6] = gpu.memBandwidth > 0 ? lg(peak / gpu.memBandwidth) : 0;
  }
  i = 7;
  // Kernel: work and the roofline's two sides on this GPU.
  f[i++] = lg(flops);
  f[i++] = lg(bytes);
  f[i++] = bytes > 0 ? lg(flops / bytes) : 0;
  f[i++] = peak > 0 ? lg(flops / peak * 1e6) : 0;
  f[i++] = gpu.memBandwidth > 0 ? lg(bytes / gpu.memBandwidth * 1e6) : 0;
  f[i++] = dtypeBytes(k.dtype);
  // Shape, by kind (13..25).
  switch (k.kind) {
  case KernelKind::Gemm:
  case KernelKind::Attention:
    f[i++] = lg(k.batch);
    f[i++] = lg(k.m);
    f[i++] = lg(k.n);
    f[i++] = lg(k.k);
    f[i++] = k.transA;
    f[i++] = k.transB;
    break;
  case KernelKind::Conv2d:
  case KernelKind::Pooling:
    f[i++] = lg(k.batch);
    f[i++] = lg(k.c);
    f[i++] = lg(k.outChannels);
    f[i++] = lg(k.h);
    f[i++] = k.r;
    f[i++] = k.strideH;
    f[i++] = k.padH;
    f[i++] = lg(k.outH());
    f[i++] = static_cast<float>(k.pass);
    break;
  case KernelKind::Softmax:
  case KernelKind::LayerNorm:
  case KernelKind::Reduce:
    f[i++] = lg(k.rows);
    f[i++] = lg(k.cols);
    f[i++] = lg(double(k.rows) / std::max(1u, gpu.numSMs));
    break;
  case KernelKind::EmbeddingBag:
    f[i++] = lg(k.numTables);
    f[i++] = lg(k.tableRows);
    f[i++] = lg(k.dim);
    f[i++] = lg(k.batch);
    f[i++] = lg(k.pooling);
    f[i++] = static_cast<float>(k.pass);
    break;
  default:
    f[i++] = lg(k.numElements);
    f[i++] = k.numInputs;
    f[i++] = k.flopsPerElement;
    f[i++] = lg(double(k.numElements) / std::max(1u, gpu.numSMs));
    break;
  }
  i = 22;
  // Tile and wave counts of GEMM-like kernels (NeuSight's insight: the wave
  // quantization is what a size-only model misses).
  if (std::optional<TileAnalysis> t = analyzeTiles(k, gpu)) {
    f[i++] = t->tile.first;
    f[i++] = t->tile.second;
    f[i++] = lg(t->tiles);
    f[i++] = lg(t->waves);
    f[i++] = static_cast<float>(t->tiles / (t->waves * gpu.numSMs));
    f[i++] = lg(t->flopsPerTile);
    f[i++] = static_cast<float>(t->features[5]);
  }
  return f;
}

namespace {
/// Frees an XGBoost handle on scope exit.
struct DMatrix {
  DMatrixHandle handle = nullptr;
  ~DMatrix() {
    if (handle)
      xgboost::loaded().dmatrixFree(handle);
  }
};
} // namespace

static llvm::Error xgbError(llvm::StringRef what) {
  // XGBoost appends its own stack trace; the first line says what failed.
  llvm::StringRef message = xgboost::loaded().getLastError();
  message = message.split("\nStack trace:").first.rtrim();
  return llvm::createStringError("xgboost: " + what + ": " + message);
}

int64_t perf::mlParallelExtent(const KernelDesc &k) {
  switch (k.kind) {
  case KernelKind::Elementwise:
    return k.numElements;
  case KernelKind::Softmax:
  case KernelKind::LayerNorm:
  case KernelKind::Reduce:
    return k.rows;
  default:
    return 0;
  }
}

KernelDesc perf::mlWithParallelExtent(const KernelDesc &k, int64_t extent) {
  KernelDesc scaled = k;
  if (k.kind == KernelKind::Elementwise)
    scaled.numElements = extent;
  else
    scaled.rows = extent;
  return scaled;
}

std::vector<size_t> perf::selectTrainingRows(llvm::ArrayRef<MlSample> samples,
                                             size_t maxRows, unsigned seed) {
  // Weighted rows (a new GPU's few measurements) first, the rest sampled.
  std::vector<size_t> order, rest;
  for (size_t i = 0; i < samples.size(); ++i)
    (samples[i].weight > 1 ? order : rest).push_back(i);
  if (order.size() + rest.size() > maxRows) {
    std::mt19937_64 rng(seed);
    std::shuffle(rest.begin(), rest.end(), rng);
    rest.resize(maxRows > order.size() ? maxRows - order.size() : 0);
  }
  order.insert(order.end(), rest.begin(), rest.end());
  return order;
}

llvm::Error perf::trainMlModel(llvm::ArrayRef<MlSample> samples,
                               const MlTrainOptions &options,
                               llvm::StringRef path) {
  if (samples.empty())
    return llvm::createStringError("no training rows for " + path);
  llvm::Expected<const xgboost::Api &> api = xgboost::load();
  if (!api)
    return api.takeError();
  const xgboost::Api &xgb = *api;
  std::vector<size_t> order =
      selectTrainingRows(samples, options.maxRows, options.seed);
  std::vector<float> data;
  std::vector<float> labels, weights;
  bool weighted = false;
  data.reserve(order.size() * kMlFeatureCount);
  for (size_t idx : order) {
    const MlSample &s = samples[idx];
    std::vector<float> f = mlFeatures(*s.kernel, *s.gpu);
    data.insert(data.end(), f.begin(), f.end());
    double baseline = s.baselineUs > 0
                          ? s.baselineUs
                          : mlBaselineUs(*s.kernel, *s.gpu, s.launchUs);
    labels.push_back(static_cast<float>(std::log(s.measuredUs / baseline)));
    weights.push_back(static_cast<float>(s.weight));
    weighted |= s.weight != 1;
  }
  DMatrix dm;
  if (xgb.dmatrixCreateFromMat(data.data(), labels.size(), kMlFeatureCount, NAN,
                               &dm.handle))
    return xgbError("creating the training matrix");
  if (xgb.dmatrixSetFloatInfo(dm.handle, "label", labels.data(), labels.size()))
    return xgbError("setting labels");
  if (weighted && xgb.dmatrixSetFloatInfo(dm.handle, "weight", weights.data(),
                                          weights.size()))
    return xgbError("setting weights");
  BoosterHandle booster = nullptr;
  if (xgb.boosterCreate(&dm.handle, 1, &booster))
    return xgbError("creating the booster");
  llvm::scope_exit cleanup([&] { xgb.boosterFree(booster); });
  std::string depth = std::to_string(options.maxDepth);
  std::string eta = std::to_string(options.eta);
  std::string threads = std::to_string(options.threads);
  std::string seed = std::to_string(options.seed);
  const std::pair<const char *, const char *> params[] = {
      {"objective", "reg:squarederror"},
      {"tree_method", "hist"},
      {"max_depth", depth.c_str()},
      {"eta", eta.c_str()},
      {"subsample", "0.8"},
      {"colsample_bytree", "0.9"},
      {"min_child_weight", "2"},
      {"nthread", threads.c_str()},
      {"seed", seed.c_str()},
      {"verbosity", "0"}};
  for (auto [key, value] : params)
    if (xgb.boosterSetParam(booster, key, value))
      return xgbError(std::string("setting ") + key);
  for (unsigned round = 0; round < options.rounds; ++round)
    if (xgb.boosterUpdateOneIter(booster, round, dm.handle))
      return xgbError("training round " + std::to_string(round));
  // Saved to memory and renamed into place once written, so an interrupted
  // run leaves no truncated booster in the model folder.
  bst_ulong size = 0;
  const char *bytes = nullptr;
  // The format follows the name: .ubj (what perf-train writes) or .json.
  const char *format = path.ends_with(".json") ? R"({"format": "json"})"
                                               : R"({"format": "ubj"})";
  if (xgb.boosterSaveModelToBuffer(booster, format, &size, &bytes))
    return xgbError("saving " + path.str());
  if (llvm::Error e = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os.write(bytes, size);
        return llvm::Error::success();
      }))
    return llvm::createStringError("cannot write '" + path +
                                   "': " + llvm::toString(std::move(e)));
  return llvm::Error::success();
}

/// The object under `key` of the JSON file at `path` (launch.json's
/// "devices", coverage.json's "kinds").
static llvm::Expected<llvm::json::Object> readJsonSection(llvm::StringRef path,
                                                          llvm::StringRef key) {
  auto json = readJsonFile(path);
  if (!json)
    return json.takeError();
  llvm::json::Object *root = json->getAsObject();
  llvm::json::Object *section = root ? root->getObject(key) : nullptr;
  if (!section)
    return llvm::createStringError(path + ": no \"" + key + "\" object");
  return std::move(*section);
}

/// Whether `stem` names a booster file: a kernel kind or the GEMM
/// tile-residual booster.
static bool isBoosterName(llvm::StringRef stem) {
  return stem == kMlGemmTileResidual || parseKernelKind(stem).has_value();
}

llvm::Expected<std::unique_ptr<MlModel>>
MlModel::load(llvm::StringRef dir,
              const std::optional<std::set<KernelKind>> &kinds) {
  if (dir.empty())
    return llvm::createStringError(
        "the ml model needs a model directory written by perf-train "
        "(perf-opt: --estimate=ml-dir=DIR or "
        "--perf-kernel-cost=\"ml-dir=DIR\"; "
        "perf-eval: --ml-dir=DIR)");
  if (!llvm::sys::fs::is_directory(dir))
    return llvm::createStringError("ml model directory '" + dir +
                                   "' does not exist");
  std::unique_ptr<MlModel> model(new MlModel());
  // Kind -> file of its booster, loaded after the folder is read.
  std::map<std::string, std::string> boosterFiles;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef path = it->path();
    llvm::StringRef file = llvm::sys::path::filename(path);
    if (file == "launch.json") {
      auto devices = readJsonSection(path, "devices");
      if (!devices)
        return devices.takeError();
      for (const auto &[device, value] : *devices) {
        std::optional<double> us = value.getAsNumber();
        if (!us || !isFiniteAtLeast(*us, 0))
          return fileError(path, "device '" + device.str() +
                                     "' has no finite non-negative number");
        model->launch[device.str()] = *us;
      }
      continue;
    }
    if (file == "coverage.json") {
      auto kinds = readJsonSection(path, "kinds");
      if (!kinds)
        return kinds.takeError();
      for (const auto &[kind, value] : *kinds) {
        const llvm::json::Array *keys = value.getAsArray();
        if (!keys)
          return llvm::createStringError(path + ": kind '" + kind.str() +
                                         "' needs an array of types");
        std::vector<std::string> &out = model->coverage[kind.str()];
        for (const llvm::json::Value &key : *keys) {
          std::optional<llvm::StringRef> text = key.getAsString();
          if (!text)
            return llvm::createStringError(path + ": kind '" + kind.str() +
                                           "' needs type strings");
          out.push_back(text->str());
        }
      }
      // Folders written before the extents were recorded have none.
      if (auto extents = readJsonSection(path, "extents")) {
        for (const auto &[kind, value] : *extents) {
          std::optional<int64_t> extent = value.getAsInteger();
          if (!extent || *extent <= 0)
            return llvm::createStringError(path + ": extent of '" + kind.str() +
                                           "' must be a positive integer");
          model->maxExtent[kind.str()] = *extent;
        }
      } else {
        llvm::consumeError(extents.takeError());
      }
      continue;
    }
    if (file == "tile.json") {
      auto tile = loadTileParams(path);
      if (!tile)
        return tile.takeError();
      auto gemm = tile->find("gemm");
      if (gemm != tile->end())
        model->gemmTile = gemm->second;
      continue;
    }
    // <kind>.ubj (XGBoost's binary JSON, what perf-train writes) or
    // <kind>.json (folders written before), either one gzipped as the
    // shipped folder stores them; the folder's other files belong to other
    // models (roofline.json to the calibrated roofline, selection.json to
    // the stack).
    llvm::StringRef stem = file;
    (void)stem.consume_back(".gz"); // the booster reader inflates either
    if (!stem.consume_back(".ubj") && !stem.consume_back(".json"))
      continue;
    llvm::StringRef kind = stem;
    if (!isBoosterName(kind))
      continue;
    if (!boosterFiles.emplace(kind.str(), path.str()).second)
      return llvm::createStringError(
          "'" + dir + "' has two boosters of '" + kind +
          "' (a .ubj and a .json, or one gzipped): keep one");
  }
  if (boosterFiles.empty())
    return llvm::createStringError("no <kind>.ubj models in '" + dir +
                                   "' (run perf-train)");
  double sum = 0;
  for (const auto &entry : model->launch)
    sum += entry.second;
  model->defaultLaunchUs =
      model->launch.empty() ? 0 : sum / model->launch.size();
  std::vector<Booster *> every;
  for (auto &[kind, path] : boosterFiles) {
    auto booster = std::make_unique<Booster>();
    booster->path = path;
    every.push_back(booster.get());
    model->boosters[kind] = std::move(booster);
  }
  // Boosters of kinds the caller will not price yet are not read: reading
  // and checking them is most of the load time.
  llvm::Error error = kinds ? model->prepare(std::vector<KernelKind>(
                                  kinds->begin(), kinds->end()))
                            : model->read(every);
  if (error)
    return std::move(error);
  return model;
}

llvm::Error MlModel::prepare(llvm::ArrayRef<KernelKind> kinds) {
  std::vector<Booster *> wanted;
  auto want = [&](llvm::StringRef name) {
    auto it = boosters.find(name);
    if (it != boosters.end() && !it->second->published.load())
      wanted.push_back(it->second.get());
  };
  for (KernelKind kind : kinds) {
    want(kernelKindName(kind));
    // The tile-residual booster prices GEMMs too.
    if (kind == KernelKind::Gemm)
      want(kMlGemmTileResidual);
  }
  // By file, so the first error is the same whatever the order asked.
  llvm::sort(wanted, [](const Booster *a, const Booster *b) {
    return a->path < b->path;
  });
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  return read(wanted);
}

llvm::Error MlModel::read(llvm::ArrayRef<Booster *> wanted) {
  if (wanted.empty())
    return llvm::Error::success();
  // Read, checked and kept as trees to walk in place (TreeEnsemble):
  // pricing loads no XGBoost.
  auto readOne = [](Booster &booster) {
    llvm::Expected<TreeEnsemble> trees =
        readBooster(booster.path, kMlFeatureCount);
    if (!trees) {
      booster.error = trees.takeError();
      return;
    }
    booster.trees = std::make_unique<TreeEnsemble>(std::move(*trees));
    booster.published.store(booster.trees.get(), std::memory_order_release);
  };
  auto readOnce = [&](Booster *booster) {
    std::call_once(booster->once, readOne, *booster);
  };
  // The boosters are independent: read, inflate and parse them on all
  // cores (a third of the load time of the shipped folder on two).
  if (wanted.size() == 1) {
    readOnce(wanted.front());
  } else {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency());
    for (Booster *booster : wanted)
      pool.async([&readOnce, booster] { readOnce(booster); });
    pool.wait();
  }
  // Errors stay llvm::Errors (an InputError names its file and place); a
  // booster that failed before fails again, by name.
  std::lock_guard<std::mutex> lock(errorLock);
  for (Booster *booster : wanted) {
    if (booster->published.load(std::memory_order_acquire))
      continue;
    if (booster->error) {
      llvm::Error e = std::move(*booster->error);
      booster->error.reset();
      return e;
    }
    return llvm::createStringError("XGBoost model '" + booster->path +
                                   "' could not be read (see the first "
                                   "error)");
  }
  return llvm::Error::success();
}

double MlModel::launchUsFor(const GpuSpec &gpu) const {
  auto it = launch.find(gpu.name);
  return it != launch.end() ? it->second : defaultLaunchUs;
}

void MlModel::calibrateLaunch(llvm::StringRef device, double launchUs) {
  launch[device.str()] = launchUs;
}

MlModel::~MlModel() {
  for (auto &entry : boosters) {
    if (entry.second->error)
      llvm::consumeError(std::move(*entry.second->error));
  }
}

const TreeEnsemble *MlModel::treesOf(llvm::StringRef kind) const {
  auto it = boosters.find(kind);
  return it == boosters.end()
             ? nullptr
             : it->second->published.load(std::memory_order_acquire);
}

std::vector<std::string> MlModel::kinds() const {
  std::vector<std::string> out;
  for (const auto &entry : boosters)
    if (entry.first() != kMlGemmTileResidual && entry.second->published.load())
      out.push_back(entry.first().str());
  llvm::sort(out);
  return out;
}

std::optional<KernelCost> MlModel::estimate(const KernelDesc &k,
                                            const GpuSpec &gpu) const {
  llvm::StringRef kind = kernelKindName(k.kind);
  const TreeEnsemble *booster = treesOf(kind);
  if (!booster)
    return std::nullopt;
  // A type the kind's training rows did not have falls through.
  auto covered = coverage.find(kind);
  if (covered != coverage.end() &&
      !llvm::is_contained(covered->second, numberTypeKey(k)))
    return std::nullopt;
  auto max = maxExtent.find(kind);
  int64_t extent = mlParallelExtent(k);
  if (max == maxExtent.end() || extent <= max->second)
    return estimateWithinCoverage(booster, k, gpu);
  // Past the largest training extent the kernel is a longer run of the same
  // full-GPU waves: each further unit costs what the last ones did. The
  // marginal cost over the upper half of the training extents carries on,
  // bounded below by the peak roofline's and above by the mean cost per unit
  // at the largest extent (no worse than scaling that kernel), so the price
  // keeps growing with size and never beats the bound. The marginal cost is
  // the repeated-median line (Siegel's: per price, the median slope to the
  // others; then their median) through the booster's prices at evenly spaced
  // extents: the trees' prices step, and one step at the largest extent,
  // taken alone, priced V100 softmax at 549 GB/s where its rows run at
  // 614-667.
  int64_t top = max->second, half = std::max<int64_t>(top / 2, 1);
  std::optional<KernelCost> atTop =
      estimateWithinCoverage(booster, mlWithParallelExtent(k, top), gpu);
  if (!atTop)
    return std::nullopt;
  constexpr int kSlopePoints = 9;
  llvm::SmallVector<std::pair<double, double>, kSlopePoints> prices;
  for (int i = 0; i < kSlopePoints && top > half; ++i) {
    int64_t units = half + (top - half) * i / (kSlopePoints - 1);
    std::optional<KernelCost> at =
        estimateWithinCoverage(booster, mlWithParallelExtent(k, units), gpu);
    if (!at)
      return std::nullopt;
    prices.push_back({double(units), at->latencyUs});
  }
  double meanPerUnit = atTop->latencyUs / double(top);
  double marginalPerUnit = meanPerUnit, fittedTopUs = atTop->latencyUs;
  if (prices.size() > 1) {
    llvm::SmallVector<double, kSlopePoints> pointSlopes;
    for (auto [x0, y0] : prices) {
      llvm::SmallVector<double, kSlopePoints> slopes;
      for (auto [x1, y1] : prices)
        if (x1 != x0)
          slopes.push_back((y1 - y0) / (x1 - x0));
      if (!slopes.empty())
        pointSlopes.push_back(median(slopes));
    }
    if (!pointSlopes.empty()) {
      marginalPerUnit = median(pointSlopes);
      std::vector<double> intercepts;
      for (auto [units, us] : prices)
        intercepts.push_back(us - marginalPerUnit * units);
      fittedTopUs = median(intercepts) + marginalPerUnit * double(top);
    }
  }
  auto boundUs = [&](int64_t units) {
    auto [compute, memory] =
        rooflineSeconds(mlWithParallelExtent(k, units), gpu);
    return std::max(compute, memory) * 1e6;
  };
  double floorPerUnit = (boundUs(extent) - boundUs(top)) / double(extent - top);
  double perUnit = std::clamp(marginalPerUnit,
                              std::min(floorPerUnit, meanPerUnit), meanPerUnit);
  KernelCost cost = *atTop;
  // Never below the price at the largest extent: the price grows with size.
  cost.latencyUs =
      std::max(atTop->latencyUs, fittedTopUs + perUnit * double(extent - top));
  double peak = gpu.peakFlops(k.dtype, k.tensorCores);
  cost.computeBound = peak > 0 && gpu.memBandwidth > 0 &&
                      k.totalFlops() / peak > k.totalBytes() / gpu.memBandwidth;
  return cost;
}

std::optional<KernelCost>
MlModel::estimateWithinCoverage(const TreeEnsemble *booster,
                                const KernelDesc &k, const GpuSpec &gpu) const {
  std::vector<float> f = mlFeatures(k, gpu);
  double residual = booster->predict(f);
  double isolatedUs =
      mlBaselineUs(k, gpu, launchUsFor(gpu)) * std::exp(residual);
  // GEMM: the geometric mean with the booster over the tile model's price.
  const TreeEnsemble *tileBooster = treesOf(kMlGemmTileResidual);
  double tileUs =
      gemmTile && tileBooster ? mlGemmBaselineUs(k, gpu, *gemmTile) : 0;
  if (tileUs > 0)
    isolatedUs = std::sqrt(isolatedUs * tileUs *
                           std::exp(double(tileBooster->predict(f))));
  // A price that is not a finite non-negative number is no price: the
  // stack's next model answers (the booster checks bound the trees' output,
  // this keeps any other overflow out of the step).
  if (!std::isfinite(isolatedUs) || isolatedUs < 0)
    return std::nullopt;
  // Each training row times one kernel alone between two events, so it
  // carries the fixed cost of an isolated launch (launch.json: the fastest
  // element-wise row of the device, 24-31 us in the NeuSight data).
  KernelCost cost = splitIsolatedCost(isolatedUs, launchUsFor(gpu));
  cost.model = "ml";
  double peak = gpu.peakFlops(k.dtype, k.tensorCores);
  cost.computeBound = peak > 0 && gpu.memBandwidth > 0 &&
                      k.totalFlops() / peak > k.totalBytes() / gpu.memBandwidth;
  return cost;
}
