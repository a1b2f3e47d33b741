//===- CrossValidation.cpp - Kernel models judged on held-out rows --------===//

#include "perf/CostModel/CrossValidation.h"
#include "perf/CostModel/DbModel.h"
#include "perf/CostModel/MlModel.h"
#include "perf/Support/KernelSignature.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <random>

using namespace perf;

std::vector<CrossValidationSplit>
perf::makeCrossValidationSplits(llvm::ArrayRef<KernelMeasurement> rows,
                                const llvm::StringMap<GpuSpec> &devices,
                                const CrossValidationOptions &options) {
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> coin(0, 1);
  auto gpu = [&](const KernelMeasurement &m) {
    return &devices.find(m.device)->second;
  };
  auto judged = [&] {
    return options.evalFraction >= 1 || coin(rng) < options.evalFraction;
  };
  std::vector<CrossValidationSplit> splits;
  if (options.protocol == CrossValidationOptions::Protocol::InDistribution) {
    // One split over all GPUs: each row is held out with probability
    // testFraction, so every GPU is in training and in the test.
    CrossValidationSplit split{"in-distribution", {}, {}};
    for (const KernelMeasurement &m : rows) {
      if (coin(rng) < options.testFraction) {
        if (judged())
          split.test.push_back(&m);
      } else {
        split.train.push_back({&m.kernel, gpu(m), m.latencyUs});
      }
    }
    splits.push_back(std::move(split));
    return splits;
  }
  std::vector<std::string> chips;
  for (const KernelMeasurement &m : rows)
    if (!llvm::is_contained(chips, chipOf(m.device)))
      chips.push_back(chipOf(m.device));
  llvm::sort(chips);
  for (const std::string &chip : chips) {
    CrossValidationSplit split{"without-" + chip, {}, {}};
    // Few-shot: per op of the held-out GPU, that many rows (fixed seed)
    // train with their weight instead of being judged.
    std::map<std::string, std::vector<const KernelMeasurement *>> heldByOp;
    for (const KernelMeasurement &m : rows) {
      if (chipOf(m.device) == chip)
        heldByOp[m.op].push_back(&m);
      else
        split.train.push_back({&m.kernel, gpu(m), m.latencyUs});
    }
    for (auto &[op, held] : heldByOp) {
      if (options.fewShot > 0)
        std::shuffle(held.begin(), held.end(), rng);
      size_t shots = std::min<size_t>(options.fewShot, held.size());
      for (size_t i = 0; i < held.size(); ++i) {
        const KernelMeasurement *m = held[i];
        if (i < shots)
          split.train.push_back(
              {&m->kernel, gpu(*m), m->latencyUs, options.fewShotWeight});
        else if (judged())
          split.test.push_back(m);
      }
    }
    splits.push_back(std::move(split));
  }
  return splits;
}

std::string perf::crossValidationGroupOf(llvm::StringRef op) {
  if (op == "bmm" || op == "linear")
    return "gemm (bmm+linear)";
  if (op == "add" || op == "relu" || op == "gelu" || op == "mul" ||
      op == "div" || op == "tanh")
    return "elementwise (add+relu+gelu)";
  if (op.ends_with("_proj"))
    return "projections (qkv+out+up+down)";
  return "";
}

namespace {
/// A stack judged as one model (the "auto" stack).
class StackModel : public KernelCostModel {
public:
  explicit StackModel(KernelCostStack stack) : stack(std::move(stack)) {}
  llvm::StringRef name() const override { return kAutoModelStack; }
  std::optional<KernelCost> estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const override {
    KernelCost cost = stack.estimate(kernel, gpu);
    if (cost.model == "none")
      return std::nullopt;
    return cost;
  }
  llvm::Error prepare(llvm::ArrayRef<KernelKind> kinds) override {
    return stack.prepare(kinds);
  }

private:
  KernelCostStack stack;
};

/// Whether any of `models` (or a part of a combination a*b) is one of
/// `fitted`.
bool usesAny(llvm::ArrayRef<std::string> models,
             std::initializer_list<llvm::StringRef> fitted) {
  for (llvm::StringRef name : models) {
    llvm::SmallVector<llvm::StringRef> parts;
    name.split(parts, '*');
    for (llvm::StringRef part : parts)
      if (llvm::is_contained(fitted, part.trim()))
        return true;
  }
  return false;
}

/// A perf database of the training rows (the db model): the held-out GPU's
/// kernels miss by construction.
llvm::Expected<std::string>
writeTrainingDatabase(llvm::StringRef dir, llvm::ArrayRef<TrainingRow> train) {
  llvm::SmallString<256> db(dir);
  llvm::sys::fs::create_directories(dir);
  llvm::sys::path::append(db, "perf.sqlite");
  llvm::sys::fs::remove(db);
  auto writer = PerfDatabase::openForWriting(db);
  if (!writer)
    return writer.takeError();
  if (auto e = (*writer)->begin())
    return std::move(e);
  for (const TrainingRow &m : train) {
    PerfDbEntry e{m.gpu->name, dtypeName(m.kernel->dtype).str(),
                  kernelKindName(m.kernel->kind).str(),
                  kernelSignature(*m.kernel), m.measuredUs};
    e.source = "neusight";
    if (auto err = (*writer)->addKernel(e))
      return std::move(err);
  }
  if (auto e = (*writer)->commit())
    return std::move(e);
  return db.str().str();
}
} // namespace

llvm::Expected<CrossValidationResult>
perf::runCrossValidation(llvm::ArrayRef<KernelMeasurement> rows,
                         const llvm::StringMap<GpuSpec> &devices,
                         const CrossValidationOptions &options,
                         llvm::raw_ostream &log) {
  CrossValidationResult result;
  for (const KernelMeasurement &m : rows) {
    if (!devices.count(m.device))
      return llvm::createStringError(m.file + ":" + llvm::Twine(m.line) +
                                     ": no GPU figures for device '" +
                                     m.device + "'");
    if (!llvm::is_contained(result.folds, chipOf(m.device)))
      result.folds.push_back(chipOf(m.device));
  }
  llvm::sort(result.folds);
  const std::vector<std::string> &models = options.models;
  bool selects = llvm::is_contained(models, kAutoModelStack);
  bool trainsMl = usesAny(models, {"ml", "ml-calibrated"}) || selects;
  bool needsTraining = trainsMl || usesAny(models, {"tile", "calibrated"});
  for (const CrossValidationSplit &split :
       makeCrossValidationSplits(rows, devices, options)) {
    for (const KernelMeasurement *m : split.test)
      ++result.testRows[chipOf(m->device)];
    llvm::SmallString<256> dir(options.workDir);
    llvm::sys::path::append(dir, split.name);
    CostModelOptions modelOptions;
    modelOptions.mlModelDir = dir.str().str();
    if (needsTraining) {
      MlTrainOptions training = options.training;
      training.trainBoosters = trainsMl;
      // "auto" is judged with a selection made without the held-out GPU.
      training.select = selects;
      training.rooflineOnly = false;
      log << split.name << ": training on " << split.train.size() << " rows\n";
      if (auto e = trainModelDirectory(split.train, dir, training, log))
        return std::move(e);
    }
    if (llvm::is_contained(models, "db")) {
      auto db = writeTrainingDatabase(dir, split.train);
      if (!db)
        return db.takeError();
      modelOptions.databasePath = *db;
    }
    for (const std::string &name : models) {
      std::unique_ptr<KernelCostModel> model;
      if (name == "ml-calibrated") {
        // The ml model trained without this GPU, told one number measured
        // on it: its fixed per-kernel cost (lowest element-wise latency).
        auto ml = MlModel::load(dir);
        if (!ml)
          return ml.takeError();
        std::vector<TrainingRow> heldOut;
        for (const KernelMeasurement *m : split.test)
          heldOut.push_back(
              {&m->kernel, &devices.find(m->device)->second, m->latencyUs});
        for (const auto &[device, us] : measureLaunchCalibration(heldOut)) {
          (*ml)->calibrateLaunch(device, us);
          log << split.name << ": " << device << ": measured fixed cost "
              << llvm::formatv("{0:f1}", us) << " us\n";
        }
        model = std::move(*ml);
      } else if (name == kAutoModelStack) {
        auto stack = createKernelCostStack(name, modelOptions);
        if (!stack)
          return stack.takeError();
        model = std::make_unique<StackModel>(std::move(*stack));
      } else {
        auto created = createKernelCostModel(name, modelOptions);
        if (!created)
          return created.takeError();
        model = std::move(*created);
      }
      auto &byOp = result.priced[name];
      for (const KernelMeasurement *m : split.test) {
        // The rows time each kernel alone: compare with isolated prices.
        std::optional<KernelCost> cost =
            model->estimate(m->kernel, devices.find(m->device)->second);
        if (!cost)
          continue;
        PricedRow p{m, cost->latencyUs + cost->isolationUs, name};
        std::string chip = chipOf(m->device);
        byOp[m->op][chip].push_back(p);
        std::string group = crossValidationGroupOf(m->op);
        if (!group.empty())
          byOp[group][chip].push_back(p);
      }
    }
  }
  return result;
}

void perf::printCrossValidationTables(
    const CrossValidationResult &result, const CrossValidationOptions &options,
    llvm::ArrayRef<std::string> debiasedModels, llvm::raw_ostream &os) {
  const std::vector<std::string> &folds = result.folds;
  auto printTable = [&](const std::string &name, llvm::StringRef title,
                        bool debias) {
    os << "\n### " << title << "\n\n| kind |";
    for (const std::string &fold : folds)
      os << " " << fold << " MAPE / GMAE |";
    os << "\n|---|";
    for (size_t i = 0; i < folds.size(); ++i)
      os << "---|";
    os << "\n";
    auto it = result.priced.find(name);
    if (it == result.priced.end() || it->second.empty()) {
      os << "| (no row priced: every held-out kernel fell through) |";
      for (size_t i = 0; i < folds.size(); ++i)
        os << " - |";
      os << "\n";
      return;
    }
    for (const auto &[op, byFold] : it->second) {
      os << "| " << op << " |";
      for (const std::string &fold : folds) {
        auto cell = byFold.find(fold);
        if (cell == byFold.end()) {
          os << " - |";
          continue;
        }
        ErrorStats s = debias ? computeDebiasedErrorStats(cell->second)
                              : computeErrorStats(cell->second);
        os << llvm::formatv(" {0:P1} / {1:P1} |", s.mape, s.gmae);
      }
      os << "\n";
    }
  };
  for (const std::string &name : options.models)
    printTable(name, name, false);
  for (const std::string &name : debiasedModels)
    printTable(name, name + ", divided by its median ratio per GPU", true);
  bool inDistribution =
      options.protocol == CrossValidationOptions::Protocol::InDistribution;
  os << "\nRows priced per " << (inDistribution ? "GPU" : "held-out GPU")
     << ":";
  for (const std::string &fold : folds) {
    auto it = result.testRows.find(fold);
    os << " " << fold << "=" << (it == result.testRows.end() ? 0 : it->second);
  }
  os << "\n";
}
