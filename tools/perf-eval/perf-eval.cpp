//===- perf-eval.cpp - Accuracy of the kernel cost models -----------------===//
//
// Prices measured kernels (NeuSight CSVs) with a model stack and prints the
// per-kind MAPE and GMAE and the worst rows. --leave-one-out fits the
// trainable models on all GPUs but one and reports the held-out GPU, for
// every model: the table of docs/accuracy.md. --in-distribution holds out a
// random share of every GPU instead (NeuSight's own validation split).
//
//===----------------------------------------------------------------------===//

#include "perf/CostModel/DbModel.h"
#include "perf/CostModel/KernelCostModel.h"
#include "perf/CostModel/KernelMeasurements.h"
#include "perf/CostModel/MlModel.h"
#include "perf/CostModel/ModelTraining.h"
#include "perf/Support/KernelSignature.h"
#include "perf/Support/InputError.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include <algorithm>
#include <cmath>
#include <map>
#include <random>

using namespace perf;
namespace cl = llvm::cl;

static cl::OptionCategory category("perf-eval options");
static cl::list<std::string> inputs(cl::Positional, cl::desc("<csv[.gz]...>"),
                                    cl::cat(category));
static cl::opt<std::string>
    modelNames("model", cl::init("roofline"),
               cl::desc("Model stack, first that prices a row wins "
                        "(db,ml,tile,heuristic,roofline)"),
               cl::cat(category));
static cl::opt<std::string>
    deviceOpt("device", cl::init("auto"),
              cl::desc("GPU name, device JSON file, or 'auto' (the row's "
                       "Device column, from --device-dir or the catalog)"),
              cl::cat(category));
static cl::opt<std::string>
    deviceDir("device-dir",
              cl::desc("Where <Device>.json files are (default: the parent "
                       "of each CSV's folder)"),
              cl::cat(category));
static cl::opt<std::string> modelDir("model-dir",
                                     cl::desc("ml models and tile.json"),
                                     cl::cat(category));
static cl::opt<std::string> dbPath("db", cl::desc("Perf database (db model)"),
                                   cl::cat(category));
static cl::opt<std::string> outputFormat(
    "output", cl::init("table"),
    cl::desc("What file mode prints: table (per-kind errors), csv or json "
             "(every priced row: file, line, op, device, measured and "
             "predicted us, model, relative error)"),
    cl::cat(category));
static cl::opt<unsigned> worst("worst", cl::init(5),
                               cl::desc("Worst rows to list"),
                               cl::cat(category));
static cl::opt<bool>
    leaveOneOut("leave-one-out",
                cl::desc("Train on all GPUs of --neusight but one, report "
                         "the held-out GPU, for each model of --models"),
                cl::cat(category));
static cl::opt<bool> inDistribution(
    "in-distribution",
    cl::desc("Train on a random share of every GPU's rows (NeuSight's "
             "validation protocol) and report the rest, per GPU"),
    cl::cat(category));
static cl::opt<double>
    testFraction("test-fraction", cl::init(0.2),
                 cl::desc("Share of rows held out by --in-distribution"),
                 cl::cat(category));
static cl::opt<unsigned> fewShot(
    "few-shot",
    cl::desc("With --leave-one-out: move this many random rows of each op "
             "of the held-out GPU into training (a short measurement run on "
             "a new GPU); they are not scored"),
    cl::init(0), cl::cat(category));
static cl::opt<double>
    fewShotWeight("few-shot-weight", cl::init(10.0),
                  cl::desc("Weight of the --few-shot rows in the ml loss"),
                  cl::cat(category));
static cl::opt<bool> debiased(
    "debiased",
    cl::desc("Also report the ml and tile models' errors with each GPU's "
             "predictions divided by their median ratio to the measurements "
             "(a per-GPU calibration constant fitted on the test rows)"),
    cl::cat(category));
static cl::opt<std::string> neusightDir("neusight",
                                        cl::desc("NeuSight data directory"),
                                        cl::cat(category));
static cl::opt<std::string>
    vidurDir("vidur",
             cl::desc("Vidur profiling directory (FP16 layer ops), for "
                      "--leave-one-out and --in-distribution"),
             cl::cat(category));
static cl::opt<std::string>
    looModels("models", cl::init("roofline,heuristic,tile,ml,db"),
              cl::desc("Models compared by --leave-one-out"),
              cl::cat(category));
static cl::opt<unsigned> maxRows("max-rows", cl::init(40000),
                                 cl::desc("ml training rows per kind"),
                                 cl::cat(category));
static cl::opt<unsigned> rounds("rounds", cl::init(300),
                                cl::desc("ml boosting rounds"),
                                cl::cat(category));
static cl::opt<unsigned> maxDepth("max-depth", cl::init(8),
                                  cl::desc("ml tree depth"), cl::cat(category));
static cl::opt<double>
    evalFraction("eval-fraction", cl::init(1.0),
                 cl::desc("Fraction of held-out rows priced (fixed seed)"),
                 cl::cat(category));
static cl::opt<std::string>
    workDir("work-dir",
            cl::desc("Where --leave-one-out writes its models "
                     "(default: a fresh temporary folder)"),
            cl::cat(category));

/// Every priced row, as CSV or JSON (one object per row in "rows").
static int printRows(llvm::ArrayRef<PricedRow> priced, bool json) {
  if (json) {
    llvm::json::Array out;
    for (const PricedRow &p : priced)
      out.push_back(llvm::json::Object{{"file", p.row->file},
                                       {"line", p.row->line},
                                       {"op", p.row->op},
                                       {"device", p.row->device},
                                       {"measured_us", p.row->latencyUs},
                                       {"predicted_us", p.predictedUs},
                                       {"model", p.model},
                                       {"error", p.relativeError()}});
    llvm::outs() << llvm::formatv(
        "{0:2}\n",
        llvm::json::Value(llvm::json::Object{{"rows", std::move(out)}}));
    return 0;
  }
  llvm::outs() << "file,line,op,device,measured_us,predicted_us,model,error\n";
  for (const PricedRow &p : priced)
    llvm::outs() << llvm::formatv(
        "{0},{1},{2},\"{3}\",{4:f3},{5:f3},{6},{7:f4}\n", p.row->file,
        p.row->line, p.row->op, p.row->device, p.row->latencyUs, p.predictedUs,
        p.model, p.relativeError());
  return 0;
}

/// Rows of operators no model knows are left out and counted, not a failure
/// of the whole file.
static void reportSkipped(const SkippedOps &skipped) {
  for (const auto &[op, count] : skipped)
    llvm::errs() << "perf-eval: skipped " << count
                 << " rows of unknown operator '" << op << "'\n";
}

static int fail(const llvm::Twine &message) {
  return reportError("perf-eval", llvm::createStringError(message));
}

static std::string describe(const KernelMeasurement &m) {
  return m.op + " " + kernelSignature(m.kernel);
}

/// Prices `rows` and groups the results by op and GPU.
struct Evaluation {
  std::vector<PricedRow> priced;
  std::map<std::pair<std::string, std::string>, std::vector<PricedRow>>
      byOpAndGpu;
};

static void printStats(llvm::raw_ostream &os, llvm::StringRef op,
                       llvm::StringRef gpu, const ErrorStats &s) {
  os << llvm::formatv("{0,-8} {1,-10} {2,7} {3,8:P1} {4,8:P1} {5,6:P0} "
                      "{6,6:P0}\n",
                      op, gpu, s.count, s.mape, s.gmae, s.within10, s.within25);
}

static llvm::Expected<GpuSpec> deviceFor(const KernelMeasurement &m,
                                         llvm::StringMap<GpuSpec> &cache) {
  std::string key = deviceOpt == "auto" ? m.device : deviceOpt.getValue();
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second;
  llvm::Expected<GpuSpec> spec = llvm::createStringError("unset");
  if (deviceOpt != "auto") {
    if (llvm::StringRef(deviceOpt).ends_with(".json"))
      spec = loadGpuSpecFile(deviceOpt);
    else if (const GpuSpec *known = lookupGpu(deviceOpt))
      spec = *known;
    else
      spec = llvm::createStringError("unknown GPU '" + deviceOpt + "'");
  } else {
    llvm::consumeError(spec.takeError());
    std::string dir = deviceDir;
    if (dir.empty())
      dir = llvm::sys::path::parent_path(llvm::sys::path::parent_path(m.file))
                .str();
    spec = neuSightDevice(dir, m.device);
  }
  if (!spec)
    return spec.takeError();
  // Say once which figures price the rows of each device.
  llvm::errs() << "perf-eval: device '" << key << "': " << spec->name;
  if (!spec->source.empty())
    llvm::errs() << " (" << spec->source << ")";
  llvm::errs() << "\n";
  cache[key] = *spec;
  return *spec;
}

static int evaluateFiles() {
  if (inputs.empty())
    return fail("no input CSV files (see --help)");
  CostModelOptions options;
  options.mlModelDir = modelDir;
  options.databasePath = dbPath;
  auto stack = createKernelCostStack(modelNames, options);
  if (!stack)
    return reportError("perf-eval", stack.takeError());
  std::vector<KernelMeasurement> rows;
  SkippedOps skipped;
  for (const std::string &file : inputs) {
    auto part = readMeasurementCsv(file, &skipped);
    if (!part)
      return reportError("perf-eval", part.takeError());
    for (KernelMeasurement &m : *part)
      rows.push_back(std::move(m));
  }
  reportSkipped(skipped);
  if (outputFormat != "table" && outputFormat != "csv" &&
      outputFormat != "json")
    return fail("--output must be table, csv or json, got '" + outputFormat +
                "'");
  llvm::StringMap<GpuSpec> devices;
  Evaluation eval;
  std::map<std::string, size_t> pricedBy;
  size_t declined = 0;
  for (const KernelMeasurement &m : rows) {
    auto gpu = deviceFor(m, devices);
    if (!gpu)
      return reportError("perf-eval", fileError(m.file, m.line, 0,
                  llvm::toString(gpu.takeError())));
    KernelCost cost = stack->estimate(m.kernel, *gpu);
    // A row no model of the stack prices is left out, not scored as -100%.
    if (cost.model == "none") {
      ++declined;
      continue;
    }
    // The rows time each kernel alone: compare with the isolated price.
    PricedRow p{&m, cost.latencyUs + cost.isolationUs, cost.model};
    ++pricedBy[cost.model];
    eval.priced.push_back(p);
    eval.byOpAndGpu[{m.op, shortGpuName(m.device)}].push_back(p);
  }
  if (declined)
    llvm::errs() << "perf-eval: " << declined
                 << " rows no model of the stack prices were left out\n";
  if (outputFormat != "table")
    return printRows(eval.priced, outputFormat == "json");
  llvm::outs() << "models: " << modelNames << "  rows: " << eval.priced.size()
               << "  priced by:";
  for (const auto &[model, n] : pricedBy)
    llvm::outs() << " " << model << "=" << n;
  llvm::outs() << "\n";
  llvm::outs() << llvm::formatv("{0,-8} {1,-10} {2,7} {3,8} {4,8} {5,6} "
                                "{6,6}\n",
                                "kind", "gpu", "rows", "MAPE", "GMAE", "<10%",
                                "<25%");
  for (const auto &[key, priced] : eval.byOpAndGpu)
    printStats(llvm::outs(), key.first, key.second, computeErrorStats(priced));
  printStats(llvm::outs(), "all", "-", computeErrorStats(eval.priced));

  std::vector<PricedRow> sorted = eval.priced;
  std::sort(
      sorted.begin(), sorted.end(), [](const PricedRow &a, const PricedRow &b) {
        return std::fabs(a.relativeError()) > std::fabs(b.relativeError());
      });
  if (worst > 0)
    llvm::outs() << "worst rows:\n";
  for (size_t i = 0; i < std::min<size_t>(worst, sorted.size()); ++i) {
    const PricedRow &p = sorted[i];
    llvm::outs() << llvm::formatv(
        "  {0}:{1}: {2} on {3}: measured {4:f1} us, {5} {6:f1} us "
        "({7:P1})\n",
        llvm::sys::path::filename(p.row->file), p.row->line, describe(*p.row),
        shortGpuName(p.row->device), p.row->latencyUs, p.model, p.predictedUs,
        p.relativeError());
  }
  for (const KernelCostMiss &miss : stack->misses())
    llvm::outs() << "db miss: " << miss.device << " " << miss.dtype << " "
                 << miss.kind << " " << miss.signature << "\n";
  return 0;
}

/// "A100-40GB" and "A100-80GB" are one fold: the same chip.
static std::string foldOf(llvm::StringRef device) {
  std::string s = shortGpuName(device);
  return llvm::StringRef(s).split('-').first.str();
}

/// Op groups reported besides each op.
static std::string groupOf(llvm::StringRef op) {
  if (op == "bmm" || op == "linear")
    return "gemm (bmm+linear)";
  if (op == "add" || op == "relu" || op == "gelu" || op == "mul" ||
      op == "div" || op == "tanh")
    return "elementwise (add+relu+gelu)";
  if (llvm::StringRef(op).ends_with("_proj"))
    return "projections (qkv+out+up+down)";
  return "";
}

namespace {
/// A stack priced as one model (the "auto" stack in cross-validation).
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

private:
  KernelCostStack stack;
};
} // namespace

/// One training run and the rows it is judged on.
struct Split {
  /// Folder name of the models trained for this split.
  std::string name;
  std::vector<TrainingRow> train;
  std::vector<const KernelMeasurement *> test;
};

static int runCrossValidation() {
  if (neusightDir.empty() && vidurDir.empty())
    return fail("--leave-one-out and --in-distribution need --neusight DIR "
                "and/or --vidur DIR");
  if (inDistribution && (testFraction <= 0 || testFraction >= 1))
    return fail("--test-fraction must be in (0, 1)");
  if (fewShot > 0 && inDistribution)
    return fail("--few-shot goes with --leave-one-out");
  if (!(fewShotWeight > 0))
    return fail("--few-shot-weight must be positive");
  SkippedOps skipped;
  std::vector<KernelMeasurement> rows;
  llvm::StringMap<GpuSpec> devices;
  for (bool isVidur : {false, true}) {
    const std::string &dir = isVidur ? vidurDir : neusightDir;
    if (dir.empty())
      continue;
    auto read =
        isVidur ? readVidurDir(dir, &skipped) : readNeuSightDir(dir, &skipped);
    if (!read)
      return reportError("perf-eval", read.takeError());
    for (KernelMeasurement &m : *read) {
      if (!devices.count(m.device)) {
        auto spec = neuSightDevice(dir, m.device);
        if (!spec)
          return reportError("perf-eval", fileError(m.file, m.line, 0,
                      llvm::toString(spec.takeError())));
        devices[m.device] = *spec;
      }
      rows.push_back(std::move(m));
    }
  }
  reportSkipped(skipped);
  std::vector<std::string> folds;
  for (const KernelMeasurement &m : rows)
    if (llvm::find(folds, foldOf(m.device)) == folds.end())
      folds.push_back(foldOf(m.device));
  llvm::sort(folds);

  llvm::SmallVector<llvm::StringRef> models;
  llvm::StringRef(looModels).split(models, ',', -1, false);
  std::string root = workDir;
  if (root.empty()) {
    llvm::SmallString<128> tmp;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("perf-eval-loo", tmp))
      return fail("cannot create a temporary folder: " + ec.message());
    root = tmp.str().str();
  }

  // model -> group/op -> fold -> priced rows.
  std::map<std::string,
           std::map<std::string, std::map<std::string, std::vector<PricedRow>>>>
      results;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> coin(0, 1);
  std::vector<Split> splits;
  if (inDistribution) {
    // One split over all GPUs: each row is held out with probability
    // --test-fraction, so every GPU is in training and in the test.
    Split split{"in-distribution", {}, {}};
    for (const KernelMeasurement &m : rows) {
      if (coin(rng) < testFraction) {
        if (evalFraction >= 1 || coin(rng) < evalFraction)
          split.test.push_back(&m);
      } else {
        split.train.push_back({&m.kernel, &devices[m.device], m.latencyUs});
      }
    }
    splits.push_back(std::move(split));
  } else {
    for (const std::string &fold : folds) {
      Split split{"without-" + fold, {}, {}};
      // --few-shot: per op of the held-out GPU, that many rows (fixed seed)
      // train with --few-shot-weight instead of being scored.
      std::map<std::string, std::vector<const KernelMeasurement *>> heldByOp;
      for (const KernelMeasurement &m : rows) {
        if (foldOf(m.device) == fold)
          heldByOp[m.op].push_back(&m);
        else
          split.train.push_back({&m.kernel, &devices[m.device], m.latencyUs});
      }
      for (auto &[op, held] : heldByOp) {
        if (fewShot > 0)
          std::shuffle(held.begin(), held.end(), rng);
        size_t shots = std::min<size_t>(fewShot, held.size());
        for (size_t i = 0; i < held.size(); ++i) {
          const KernelMeasurement *m = held[i];
          if (i < shots)
            split.train.push_back(
                {&m->kernel, &devices[m->device], m->latencyUs, fewShotWeight});
          else if (evalFraction >= 1 || coin(rng) < evalFraction)
            split.test.push_back(m);
        }
      }
      splits.push_back(std::move(split));
    }
  }
  for (const Split &split : splits) {
    const std::vector<TrainingRow> &train = split.train;
    const std::vector<const KernelMeasurement *> &test = split.test;
    llvm::SmallString<256> dir(root);
    llvm::sys::path::append(dir, split.name);
    CostModelOptions options;
    options.mlModelDir = dir.str().str();
    bool selects = llvm::is_contained(models, kAutoModelStack);
    bool trainsMl = llvm::is_contained(models, "ml") ||
                    llvm::is_contained(models, "ml-calibrated") ||
                    llvm::is_contained(models, "ml*tile") || selects;
    bool needsTraining = trainsMl || llvm::is_contained(models, "tile") ||
                         llvm::is_contained(models, "calibrated");
    // (ml*tile trains both: trainModelDirectory always fits tile.json.)
    if (needsTraining) {
      MlTrainOptions ml;
      ml.maxRows = maxRows;
      ml.rounds = rounds;
      ml.maxDepth = maxDepth;
      ml.trainBoosters = trainsMl;
      // "auto" is judged with a selection made without the held-out GPU.
      ml.select = selects;
      llvm::errs() << split.name << ": training on " << train.size()
                   << " rows\n";
      if (auto e = trainModelDirectory(train, dir, ml, llvm::errs()))
        return reportError("perf-eval", std::move(e));
    }
    if (llvm::is_contained(models, "db")) {
      // A perf DB of the training GPUs: the held-out GPU's kernels miss.
      llvm::SmallString<256> db(dir);
      llvm::sys::fs::create_directories(dir);
      llvm::sys::path::append(db, "perf.sqlite");
      llvm::sys::fs::remove(db);
      auto writer = PerfDatabase::openForWriting(db);
      if (!writer)
        return reportError("perf-eval", writer.takeError());
      if (auto e = (*writer)->begin())
        return reportError("perf-eval", std::move(e));
      for (const TrainingRow &m : train) {
        PerfDbEntry e{m.gpu->name, dtypeName(m.kernel->dtype).str(),
                      kernelKindName(m.kernel->kind).str(),
                      kernelSignature(*m.kernel), m.measuredUs};
        e.source = "neusight";
        if (auto err = (*writer)->addKernel(e))
          return reportError("perf-eval", std::move(err));
      }
      if (auto e = (*writer)->commit())
        return reportError("perf-eval", std::move(e));
      options.databasePath = db.str().str();
    }
    for (llvm::StringRef name : models) {
      llvm::Expected<std::unique_ptr<KernelCostModel>> model =
          llvm::createStringError("unset");
      std::unique_ptr<KernelCostModel> second;
      llvm::consumeError(model.takeError());
      if (name == "ml-calibrated") {
        // The ml model trained without this GPU, told one number measured
        // on it: its fixed per-kernel cost (lowest element-wise latency).
        auto ml = MlModel::load(dir);
        if (!ml)
          return reportError("perf-eval", ml.takeError());
        std::vector<TrainingRow> heldOut;
        for (const KernelMeasurement *m : test)
          heldOut.push_back({&m->kernel, &devices[m->device], m->latencyUs});
        for (const auto &[device, us] : measureLaunchCalibration(heldOut)) {
          (*ml)->calibrateLaunch(device, us);
          llvm::errs() << split.name << ": " << device
                       << ": measured fixed cost "
                       << llvm::formatv("{0:f1}", us) << " us\n";
        }
        model = std::unique_ptr<KernelCostModel>(std::move(*ml));
      } else if (name == "ml*tile") {
        // Geometric mean of the ml and tile prices where both price a row.
        auto ml = createKernelCostModel("ml", options);
        if (!ml)
          return reportError("perf-eval", ml.takeError());
        auto tile = createKernelCostModel("tile", options);
        if (!tile)
          return reportError("perf-eval", tile.takeError());
        second = std::move(*tile);
        model = std::move(*ml);
      } else if (name == kAutoModelStack) {
        auto stack = createKernelCostStack(name, options);
        if (!stack)
          return reportError("perf-eval", stack.takeError());
        model = std::unique_ptr<KernelCostModel>(
            std::make_unique<StackModel>(std::move(*stack)));
      } else {
        model = createKernelCostModel(name, options);
      }
      if (!model)
        return reportError("perf-eval", model.takeError());
      for (const KernelMeasurement *m : test) {
        const GpuSpec &gpu = devices[m->device];
        // The rows time each kernel alone: compare with isolated prices.
        auto isolated =
            [&](const KernelCostModel &priced) -> std::optional<KernelCost> {
          std::optional<KernelCost> c = priced.estimate(m->kernel, gpu);
          if (c)
            c->latencyUs += c->isolationUs;
          return c;
        };
        std::optional<KernelCost> cost = isolated(**model);
        if (second) {
          std::optional<KernelCost> other = isolated(*second);
          if (!cost || !other)
            continue;
          cost->latencyUs = std::sqrt(cost->latencyUs * other->latencyUs);
        }
        if (!cost)
          continue;
        std::string column = foldOf(m->device);
        PricedRow p{m, cost->latencyUs, name.str()};
        results[name.str()][m->op][column].push_back(p);
        std::string group = groupOf(m->op);
        if (!group.empty())
          results[name.str()][group][column].push_back(p);
      }
    }
  }

  // Markdown: one table per model, rows = op, columns = held-out GPU.
  llvm::raw_ostream &os = llvm::outs();
  auto printTable = [&](llvm::StringRef name, llvm::StringRef title,
                        bool debias) {
    os << "\n### " << title << "\n\n| kind |";
    for (const std::string &fold : folds)
      os << " " << fold << " MAPE / GMAE |";
    os << "\n|---|";
    for (size_t i = 0; i < folds.size(); ++i)
      os << "---|";
    os << "\n";
    auto &byOp = results[name.str()];
    if (byOp.empty()) {
      os << "| (no row priced: every held-out kernel fell through) |";
      for (size_t i = 0; i < folds.size(); ++i)
        os << " - |";
      os << "\n";
      return;
    }
    for (auto &[op, byFold] : byOp) {
      os << "| " << op << " |";
      for (const std::string &fold : folds) {
        auto it = byFold.find(fold);
        if (it == byFold.end()) {
          os << " - |";
          continue;
        }
        ErrorStats s = debias ? computeDebiasedErrorStats(it->second)
                              : computeErrorStats(it->second);
        os << llvm::formatv(" {0:P1} / {1:P1} |", s.mape, s.gmae);
      }
      os << "\n";
    }
  };
  for (llvm::StringRef name : models)
    printTable(name, name, false);
  if (debiased)
    for (llvm::StringRef name : models)
      if (name == "ml" || name == "tile")
        printTable(name, (name + ", divided by its median ratio per GPU").str(),
                   true);
  os << "\nRows priced per " << (inDistribution ? "GPU" : "held-out GPU")
     << ":";
  for (const std::string &fold : folds) {
    size_t n = 0;
    for (const Split &split : splits)
      for (const KernelMeasurement *m : split.test)
        n += foldOf(m->device) == fold;
    os << " " << fold << "=" << n;
  }
  os << "\n";
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "perf-eval: accuracy of the kernel cost models on measured kernels\n\n"
      "  perf-eval --model=tile --device=auto bmm/Tesla_T4.csv.gz\n"
      "  perf-eval --leave-one-out --neusight DIR --models=roofline,tile,ml\n"
      "  perf-eval --in-distribution --neusight DIR --models=ml\n"
      "  perf-eval --leave-one-out --vidur DIR --models=roofline,calibrated\n");
  if (leaveOneOut && inDistribution)
    return fail("--leave-one-out and --in-distribution are exclusive");
  return leaveOneOut || inDistribution ? runCrossValidation() : evaluateFiles();
}
