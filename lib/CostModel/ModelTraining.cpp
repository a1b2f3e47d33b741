//===- ModelTraining.cpp - Fitting the tile and ml models -----------------===//

#include "perf/CostModel/ModelTraining.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include <algorithm>
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
      types[family.str()].insert(mlCoverageKey(*r.kernel));
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

/// Writes `value` as indented JSON to `dir`/`name`; returns the path.
static llvm::Expected<std::string>
writeJsonFile(llvm::StringRef dir, llvm::StringRef name,
              const llvm::json::Value &value) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError(ec, "cannot write '" + path + "'");
  os << llvm::formatv("{0:2}", value) << "\n";
  return path.str().str();
}

llvm::Error perf::trainModelDirectory(llvm::ArrayRef<TrainingRow> rows,
                                      llvm::StringRef dir,
                                      const MlTrainOptions &options,
                                      llvm::raw_ostream &log) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(ec, "cannot create '" + dir + "'");
  LaunchCalibration launch = measureLaunchCalibration(rows);
  if (options.trainBoosters) {
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
        mlCoverageKey(*r.kernel));
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
    auto written = writeJsonFile(
        dir, "coverage.json",
        llvm::json::Object{{"kinds", std::move(kinds)},
                           {"extents", std::move(maxExtents)}});
    if (!written)
      return written.takeError();
  }
  for (const auto &[kind, samples] : byKind) {
    if (!options.trainBoosters)
      break;
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, kind + ".json");
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
  return llvm::Error::success();
}
