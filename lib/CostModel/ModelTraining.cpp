//===- ModelTraining.cpp - Fitting the tile and ml models -----------------===//

#include "perf/CostModel/ModelTraining.h"
#include "perf/CostModel/KernelMeasurements.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

using namespace perf;

TileParamsSet perf::fitTileFamilies(llvm::ArrayRef<TrainingRow> rows,
                                    size_t maxRows, unsigned seed,
                                    unsigned iterations) {
  std::map<std::string, std::vector<TileSample>> byFamily;
  std::map<std::string, std::set<std::string>> types;
  for (const TrainingRow &r : rows) {
    llvm::StringRef family = tileFamily(*r.kernel);
    if (family.empty())
      continue;
    if (std::optional<TileAnalysis> a = analyzeTiles(*r.kernel, *r.gpu)) {
      byFamily[family.str()].push_back({*a, r.measuredUs});
      types[family.str()].insert(numberTypeKey(*r.kernel));
    }
  }
  TileParamsSet set;
  for (auto &[family, samples] : byFamily) {
    if (samples.size() > maxRows) {
      std::mt19937_64 rng(seed);
      std::shuffle(samples.begin(), samples.end(), rng);
      samples.resize(maxRows);
    }
    set[family] = fitTileParams(samples, iterations);
    set[family].coverage.assign(types[family].begin(), types[family].end());
  }
  return set;
}

LaunchCalibration
perf::measureLaunchCalibration(llvm::ArrayRef<TrainingRow> rows) {
  LaunchCalibration out;
  for (const TrainingRow &r : rows) {
    if (r.kernel->kind != KernelKind::Elementwise || r.measuredUs <= 0)
      continue;
    auto [it, inserted] = out.try_emplace(r.gpu->name, r.measuredUs);
    if (!inserted)
      it->second = std::min(it->second, r.measuredUs);
  }
  return out;
}

namespace {
/// One row of a roofline fit: its bound at 100% of peak on each side.
struct BoundRow {
  double computeUs, memoryUs, measuredUs;
};
} // namespace

/// Mean |log(predicted / measured)| of `rows` under `fit`.
static double meanLogError(llvm::ArrayRef<BoundRow> rows,
                           const RooflineFit &fit) {
  double sum = 0;
  for (const BoundRow &r : rows) {
    double us = fit.fixedUs + std::max(r.computeUs / fit.computeEfficiency,
                                       r.memoryUs / fit.memoryEfficiency);
    sum += std::fabs(std::log(std::max(us, 1e-3) / r.measuredUs));
  }
  return sum / rows.size();
}

/// Coordinate descent over fixed grids: efficiencies from 1 down to 0.01
/// (2% steps, tried from the top so ties keep the higher one), the fixed
/// cost from 0 to the fastest row.
static RooflineFit fitRoofline(llvm::ArrayRef<BoundRow> rows,
                               bool fitsCompute) {
  std::vector<double> efficiencies;
  for (double e = 1.0; e >= 0.01; e /= 1.02)
    efficiencies.push_back(e);
  double fastest = rows.front().measuredUs;
  for (const BoundRow &r : rows)
    fastest = std::min(fastest, r.measuredUs);
  std::vector<double> fixed;
  for (int i = 0; i <= 100; ++i)
    fixed.push_back(fastest * i / 100.0);
  RooflineFit fit;
  fit.fixedUs = 0.5 * fastest;
  double best = meanLogError(rows, fit);
  auto sweep = [&](double RooflineFit::*field,
                   const std::vector<double> &grid) {
    RooflineFit trial = fit;
    for (double v : grid) {
      trial.*field = v;
      double err = meanLogError(rows, trial);
      if (err < best - 1e-12) {
        best = err;
        fit = trial;
      }
    }
  };
  for (int pass = 0; pass < 4; ++pass) {
    if (fitsCompute)
      sweep(&RooflineFit::computeEfficiency, efficiencies);
    sweep(&RooflineFit::memoryEfficiency, efficiencies);
    sweep(&RooflineFit::fixedUs, fixed);
  }
  return fit;
}

/// Relative errors of `fit` on `rows`: {GMAE, MAPE}.
static std::pair<double, double> fitErrors(llvm::ArrayRef<BoundRow> rows,
                                           const RooflineFit &fit) {
  double sumAbs = 0, sumLog = 0;
  for (const BoundRow &r : rows) {
    double us = fit.fixedUs + std::max(r.computeUs / fit.computeEfficiency,
                                       r.memoryUs / fit.memoryEfficiency);
    double e = std::fabs(us - r.measuredUs) / r.measuredUs;
    sumAbs += e;
    sumLog += std::log(std::max(e, 1e-4));
  }
  return {std::exp(sumLog / rows.size()), sumAbs / rows.size()};
}

/// Each figure of `fits` at its median.
static RooflineFit medianFit(llvm::ArrayRef<RooflineFit> fits) {
  auto medianOf = [&](double RooflineFit::*field) {
    std::vector<double> v;
    for (const RooflineFit &f : fits)
      v.push_back(f.*field);
    return median(v);
  };
  RooflineFit out;
  out.computeEfficiency = medianOf(&RooflineFit::computeEfficiency);
  out.memoryEfficiency = medianOf(&RooflineFit::memoryEfficiency);
  out.fixedUs = medianOf(&RooflineFit::fixedUs);
  out.launchUs = medianOf(&RooflineFit::launchUs);
  for (const RooflineFit &f : fits)
    out.rows += f.rows;
  return out;
}

RooflineCalibration
perf::fitRooflineCalibration(llvm::ArrayRef<TrainingRow> rows,
                             const LaunchCalibration &launch, size_t maxRows,
                             size_t minRows, unsigned seed) {
  std::map<RooflineCalibration::Key, std::vector<BoundRow>> groups;
  for (const TrainingRow &r : rows) {
    if (r.measuredUs <= 0)
      continue;
    auto [compute, memory] = rooflineSeconds(*r.kernel, *r.gpu);
    groups[{r.gpu->name, calibrationKindOf(*r.kernel),
            numberTypeKey(*r.kernel)}]
        .push_back({compute * 1e6, memory * 1e6, r.measuredUs});
  }
  // A device without element-wise rows gets the mean, as MlModel does.
  double meanLaunchUs = 0;
  for (const auto &entry : launch)
    meanLaunchUs += entry.second / launch.size();
  RooflineCalibration out;
  // (kind, type) -> the devices' fits and rows, for the "*" fits.
  std::map<std::pair<std::string, std::string>,
           std::vector<std::pair<RooflineFit, const std::vector<BoundRow> *>>>
      byKind;
  for (auto &[key, group] : groups) {
    if (group.size() < minRows)
      continue;
    if (group.size() > maxRows) {
      std::mt19937_64 rng(seed);
      std::shuffle(group.begin(), group.end(), rng);
      group.resize(maxRows);
    }
    // Kinds that stream their bytes keep the compute side at peak: their
    // FLOP counts are nominal (a few per element), and a fitted compute
    // efficiency would only stand in for the slower ops of the kind.
    llvm::StringRef kind = llvm::StringRef(std::get<1>(key)).split(':').first;
    bool fitsCompute = kind == kernelKindName(KernelKind::Gemm) ||
                       kind == kernelKindName(KernelKind::Conv2d) ||
                       kind == kernelKindName(KernelKind::Attention);
    RooflineFit fit = fitRoofline(group, fitsCompute);
    auto it = launch.find(std::get<0>(key));
    fit.launchUs = it != launch.end() ? it->second : meanLaunchUs;
    fit.rows = group.size();
    std::tie(fit.gmae, fit.mape) = fitErrors(group, fit);
    out.add(key, fit);
    byKind[{std::get<1>(key), std::get<2>(key)}].push_back({fit, &group});
  }
  // A GPU without measurements gets the median of the others' fits where,
  // with each device held out in turn, that median priced the held-out
  // device better than the plain roofline did.
  RooflineFit plain;
  plain.computeEfficiency = CostModelOptions().computeEfficiency;
  plain.memoryEfficiency = CostModelOptions().memoryEfficiency;
  for (const auto &[kind, devices] : byKind) {
    if (devices.size() < 2)
      continue;
    bool better = true;
    double heldOut = 0, roofline = 0;
    for (size_t held = 0; held < devices.size(); ++held) {
      std::vector<RooflineFit> others;
      for (size_t i = 0; i < devices.size(); ++i)
        if (i != held)
          others.push_back(devices[i].first);
      const std::vector<BoundRow> &rowsOfHeld = *devices[held].second;
      double fitted = fitErrors(rowsOfHeld, medianFit(others)).first;
      double bound = fitErrors(rowsOfHeld, plain).first;
      better &= fitted <= bound;
      heldOut += fitted / devices.size();
      roofline += bound / devices.size();
    }
    if (!better)
      continue;
    std::vector<RooflineFit> all;
    for (const auto &entry : devices)
      all.push_back(entry.first);
    RooflineFit any = medianFit(all);
    any.heldOutGmae = heldOut;
    any.rooflineGmae = roofline;
    out.add({RooflineCalibration::kAnyDevice, kind.first, kind.second}, any);
  }
  return out;
}

/// Writes `value` as indented JSON to `dir`/`name`; returns the path.
static llvm::Expected<std::string>
writeJsonFile(llvm::StringRef dir, llvm::StringRef name,
              const llvm::json::Value &value) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  // Renamed into place once complete: an interrupted perf-train leaves no
  // half-written file in the model folder.
  if (llvm::Error e = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << llvm::formatv("{0:2}", value) << "\n";
        return llvm::Error::success();
      }))
    return llvm::createStringError("cannot write '" + path +
                                   "': " + llvm::toString(std::move(e)));
  return path.str().str();
}

std::string perf::chipOf(llvm::StringRef device) {
  return llvm::StringRef(shortGpuName(device)).split('-').first.str();
}

llvm::Expected<ModelSelection> perf::selectModelsByHeldOutGpu(
    llvm::ArrayRef<TrainingRow> rows, llvm::StringRef workDir,
    const MlTrainOptions &options, llvm::raw_ostream &log) {
  ModelSelection selection;
  std::map<std::string, std::vector<size_t>> byChip;
  for (auto [i, r] : llvm::enumerate(rows)) {
    selection.trainedDevices.insert(r.gpu->name);
    byChip[chipOf(r.gpu->name)].push_back(i);
  }
  if (byChip.size() < 2) {
    // Nothing to hold out: no evidence that ml or tile, fitted on this GPU
    // alone, carry over to another one.
    log << "select: one GPU only, nothing to hold out: on other GPUs every "
           "kind is priced by the analytic models\n";
    for (const TrainingRow &r : rows)
      selection.first[{kernelKindName(r.kernel->kind).str(),
                       numberTypeKey(*r.kernel)}] =
          ModelSelection::kAnalyticOnly;
    return selection;
  }
  llvm::SmallVector<llvm::StringRef> candidates;
  llvm::StringRef(kDefaultModelStack).split(candidates, ',');
  struct Score {
    double sumLog = 0;
    size_t priced = 0;
  };
  // key -> chip -> rows held out, and key -> model -> chip -> score.
  std::map<ModelSelection::Key, std::map<std::string, size_t>> heldRows;
  std::map<ModelSelection::Key,
           std::map<std::string, std::map<std::string, Score>>>
      scores;
  MlTrainOptions foldOptions = options;
  foldOptions.select = false;
  foldOptions.rooflineOnly = false;
  for (const auto &[chip, held] : byChip) {
    std::vector<TrainingRow> train;
    std::set<size_t> heldSet(held.begin(), held.end());
    for (auto [i, r] : llvm::enumerate(rows))
      if (!heldSet.count(i))
        train.push_back(r);
    llvm::SmallString<256> dir(workDir);
    llvm::sys::path::append(dir, "without-" + chip);
    log << "select: training without " << chip << " (" << train.size()
        << " rows)\n";
    std::string quiet;
    llvm::raw_string_ostream sink(quiet);
    if (auto e = trainModelDirectory(train, dir, foldOptions, sink))
      return std::move(e);
    CostModelOptions modelOptions;
    modelOptions.mlModelDir = dir.str().str();
    std::vector<std::unique_ptr<KernelCostModel>> models;
    for (llvm::StringRef name : candidates) {
      auto model = createKernelCostModel(name, modelOptions);
      if (!model) {
        // A fold may leave a model nothing to fit (no roofline.json).
        llvm::consumeError(model.takeError());
        models.push_back(nullptr);
        continue;
      }
      models.push_back(std::move(*model));
    }
    for (size_t i : held) {
      const TrainingRow &r = rows[i];
      ModelSelection::Key key{kernelKindName(r.kernel->kind).str(),
                              numberTypeKey(*r.kernel)};
      ++heldRows[key][chip];
      for (auto [m, model] : llvm::enumerate(models)) {
        if (!model)
          continue;
        std::optional<KernelCost> cost = model->estimate(*r.kernel, *r.gpu);
        if (!cost)
          continue;
        double isolated = cost->latencyUs + cost->isolationUs;
        double e = std::fabs(isolated - r.measuredUs) / r.measuredUs;
        Score &s = scores[key][candidates[m].str()][chip];
        s.sumLog += std::log(std::max(e, 1e-4));
        ++s.priced;
      }
    }
  }
  for (const auto &[key, chips] : heldRows) {
    std::string best;
    double bestGmae = 0;
    for (llvm::StringRef name : candidates) {
      auto &byChipScore = scores[key][name.str()];
      double mean = 0;
      bool covers = true;
      for (const auto &[chip, n] : chips) {
        const Score &s = byChipScore[chip];
        if (s.priced < 0.9 * n) {
          covers = false;
          break;
        }
        mean += std::exp(s.sumLog / s.priced) / chips.size();
      }
      if (!covers)
        continue;
      selection.heldOutGmae[key][name.str()] = mean;
      if (best.empty() || mean < bestGmae) {
        best = name.str();
        bestGmae = mean;
      }
    }
    if (best.empty())
      continue;
    selection.first[key] = best;
    log << "select: " << key.first << " " << key.second << ": " << best;
    for (const auto &[name, gmae] : selection.heldOutGmae[key])
      log << llvm::formatv(" {0}={1:P1}", name, gmae);
    log << "\n";
  }
  return selection;
}

llvm::Error perf::trainModelDirectory(llvm::ArrayRef<TrainingRow> rows,
                                      llvm::StringRef dir,
                                      const MlTrainOptions &options,
                                      llvm::raw_ostream &log) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(ec, "cannot create '" + dir + "'");
  LaunchCalibration launch = measureLaunchCalibration(rows);
  if (options.trainBoosters && !options.rooflineOnly) {
    llvm::json::Object devices;
    for (const auto &[device, us] : launch) {
      devices[device] = us;
      log << "ml: " << device << ": fixed cost " << llvm::formatv("{0:f1}", us)
          << " us\n";
    }
    auto written =
        writeJsonFile(dir, "launch.json",
                      llvm::json::Object{{"devices", std::move(devices)}});
    if (!written)
      return written.takeError();
  }
  // A device without element-wise rows gets the mean, as MlModel does.
  double meanLaunchUs = 0;
  for (const auto &entry : launch)
    meanLaunchUs += entry.second / launch.size();
  RooflineCalibration roofline =
      fitRooflineCalibration(rows, launch, 4000, 20, options.seed);
  if (!roofline.empty()) {
    auto path = writeJsonFile(dir, "roofline.json", roofline.toJson());
    if (!path)
      return path.takeError();
    for (const auto &[key, fit] : roofline.entries())
      if (std::get<0>(key) == RooflineCalibration::kAnyDevice)
        log << llvm::formatv("roofline: any GPU {0} {1}: compute {2:f2}, "
                             "memory {3:f2}, fixed {4:f1} us; held-out GMAE "
                             "{5:P1} (plain roofline {6:P1})\n",
                             std::get<1>(key), std::get<2>(key),
                             fit.computeEfficiency, fit.memoryEfficiency,
                             fit.fixedUs, fit.heldOutGmae, fit.rooflineGmae);
      else
        log << llvm::formatv("roofline: {0} {1} {2}: compute {3:f2}, memory "
                             "{4:f2}, fixed {5:f1} us; GMAE {6:P1} on {7} "
                             "rows\n",
                             std::get<0>(key), std::get<1>(key),
                             std::get<2>(key), fit.computeEfficiency,
                             fit.memoryEfficiency, fit.fixedUs, fit.gmae,
                             fit.rows);
  }
  if (options.rooflineOnly)
    return llvm::Error::success();
  TileParamsSet tile = fitTileFamilies(rows, 20000, options.seed);
  if (!tile.empty()) {
    auto path = writeJsonFile(dir, "tile.json", tileParamsToJson(tile));
    if (!path)
      return path.takeError();
    for (const auto &[family, p] : tile)
      log << "tile: " << family << ": fitted on " << p.trainedRows
          << " rows, overhead " << llvm::formatv("{0:f2}", p.overheadUs)
          << " us -> " << *path << "\n";
  }
  // A second GEMM booster learns the residual of the tile model just
  // fitted; MlModel prices a GEMM as the geometric mean of both boosters'
  // prices when tile.json and this booster are present.
  auto gemmTile = tile.find("gemm");
  std::map<std::string, std::vector<MlSample>> byKind;
  // The number types each kind is trained on: the ml model declines others
  // (an FP32-trained booster would extrapolate to tensor cores).
  std::map<std::string, std::set<std::string>> types;
  std::map<std::string, int64_t> extents;
  for (const TrainingRow &r : rows) {
    types[kernelKindName(r.kernel->kind).str()].insert(
        numberTypeKey(*r.kernel));
    if (int64_t extent = mlParallelExtent(*r.kernel)) {
      int64_t &max = extents[kernelKindName(r.kernel->kind).str()];
      max = std::max(max, extent);
    }
    auto it = launch.find(r.gpu->name);
    MlSample sample{r.kernel, r.gpu, r.measuredUs,
                    it != launch.end() ? it->second : meanLaunchUs};
    sample.weight = r.weight;
    byKind[kernelKindName(r.kernel->kind).str()].push_back(sample);
    if (gemmTile == tile.end())
      continue;
    sample.baselineUs = mlGemmBaselineUs(*r.kernel, *r.gpu, gemmTile->second);
    if (sample.baselineUs > 0)
      byKind[kMlGemmTileResidual].push_back(sample);
  }
  if (options.trainBoosters) {
    llvm::json::Object kinds;
    for (const auto &[kind, keys] : types)
      kinds[kind] =
          llvm::json::Array(std::vector<std::string>(keys.begin(), keys.end()));
    llvm::json::Object maxExtents;
    for (const auto &[kind, extent] : extents)
      maxExtents[kind] = extent;
    auto written =
        writeJsonFile(dir, "coverage.json",
                      llvm::json::Object{{"kinds", std::move(kinds)},
                                         {"extents", std::move(maxExtents)}});
    if (!written)
      return written.takeError();
  }
  for (const auto &[kind, samples] : byKind) {
    if (!options.trainBoosters)
      break;
    llvm::SmallString<256> path(dir);
    // UBJSON: XGBoost loads it several times faster than its JSON. A
    // booster of this kind left by an earlier run in another form would
    // make the folder ambiguous: it is superseded.
    for (llvm::StringRef stale : {".json", ".json.gz", ".ubj.gz"}) {
      llvm::SmallString<256> old(dir);
      llvm::sys::path::append(old, kind + stale.str());
      llvm::sys::fs::remove(old);
    }
    llvm::sys::path::append(path, kind + ".ubj");
    if (auto e = trainMlModel(samples, options, path))
      return e;
    size_t weighted =
        llvm::count_if(samples, [](const MlSample &s) { return s.weight > 1; });
    log << "ml: " << kind << ": trained on "
        << std::max(weighted, std::min(samples.size(), options.maxRows))
        << " of " << samples.size() << " rows";
    if (weighted)
      log << " (" << weighted << " weighted)";
    log << " -> " << path << "\n";
  }
  if (options.select) {
    llvm::SmallString<128> work;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("perf-train-select", work))
      return llvm::createStringError(ec, "cannot create a temporary folder");
    auto selection = selectModelsByHeldOutGpu(rows, work, options, log);
    llvm::sys::fs::remove_directories(work);
    if (!selection)
      return selection.takeError();
    auto path = writeJsonFile(dir, "selection.json", selection->toJson());
    if (!path)
      return path.takeError();
  }
  return llvm::Error::success();
}
