//===- perf-eval.cpp - Accuracy of the kernel cost models -----------------===//
//
// Prices measured kernels (NeuSight CSVs, Vidur profiles, perf databases)
// with a model stack and prints the per-kind MAPE and GMAE and the worst
// rows. --leave-one-out fits the trainable models on all GPUs but one and
// reports the held-out GPU, for every model: the table of docs/accuracy.md.
// --in-distribution holds out a random share of every GPU instead
// (NeuSight's own validation split).
//
//===----------------------------------------------------------------------===//

#include "perf/CostModel/CrossValidation.h"
#include "perf/CostModel/KernelCostModel.h"
#include "perf/CostModel/KernelMeasurements.h"
#include "perf/Support/InputError.h"
#include "perf/Support/KernelSignature.h"
#include "perf/Support/Version.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include <algorithm>
#include <cmath>
#include <map>

using namespace perf;
namespace cl = llvm::cl;

static cl::OptionCategory category("perf-eval options");
static cl::list<std::string>
    inputs(cl::Positional,
           cl::desc("<csv[.gz] or perf database (.db, .sqlite)...>"),
           cl::cat(category));
static cl::opt<std::string>
    modelNames("model", cl::init("roofline"),
               cl::desc("Model stack, first that prices a row wins: db, ml, "
                        "tile, calibrated, heuristic, roofline, combinations "
                        "such as ml*tile (geometric mean), or auto "
                        "(default: roofline)"),
               cl::cat(category));
static cl::opt<std::string>
    deviceOpt("device", cl::init("auto"),
              cl::desc("GPU name, device JSON file, or 'auto' (the row's "
                       "Device column, from --device-dir or the catalog; a "
                       "perf database's rows: the spec stored with them; "
                       "default: auto)"),
              cl::cat(category));
static cl::opt<std::string>
    deviceDir("device-dir",
              cl::desc("Where <Device>.json files are (default: the parent "
                       "of each CSV's folder)"),
              cl::cat(category));
static cl::opt<std::string>
    modelDir("ml-dir",
             cl::desc("Model folder (perf-train --ml-dir): ml models, "
                      "tile.json, roofline.json (--model-dir is its earlier "
                      "name)"),
             cl::value_desc("dir"), cl::cat(category));
// The spelling of earlier releases.
static cl::alias modelDirOld("model-dir", cl::desc("Alias for --ml-dir"),
                             cl::aliasopt(modelDir));
static cl::opt<std::string> dbPath("db", cl::desc("Perf database (db model)"),
                                   cl::cat(category));
static cl::opt<std::string> outputFormat(
    "output", cl::init("table"),
    cl::desc("What file mode prints: table (per-kind errors), csv or json "
             "(every priced row: file, line, op, device, measured and "
             "predicted us, model, relative error; default: table)"),
    cl::cat(category));
static cl::opt<unsigned> worst("worst", cl::init(5),
                               cl::desc("Worst rows to list (default: 5)"),
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
                 cl::desc("Share of rows held out by --in-distribution "
                          "(default: 0.2)"),
                 cl::cat(category));
static cl::opt<unsigned> fewShot(
    "few-shot",
    cl::desc("With --leave-one-out: move this many random rows of each op "
             "of the held-out GPU into training (a short measurement run on "
             "a new GPU); they are not scored (default: 0)"),
    cl::init(0), cl::cat(category));
static cl::opt<double>
    fewShotWeight("few-shot-weight", cl::init(10.0),
                  cl::desc("Weight of the --few-shot rows in the ml loss "
                           "(default: 10)"),
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
              cl::desc("Models compared by --leave-one-out (default: "
                       "roofline,heuristic,tile,ml,db)"),
              cl::cat(category));
static cl::opt<unsigned>
    maxRows("max-rows", cl::init(40000),
            cl::desc("ml training rows per kind (default: 40000)"),
            cl::cat(category));
static cl::opt<unsigned> rounds("rounds", cl::init(300),
                                cl::desc("ml boosting rounds (default: 300)"),
                                cl::cat(category));
static cl::opt<unsigned> maxDepth("max-depth", cl::init(8),
                                  cl::desc("ml tree depth (default: 8)"),
                                  cl::cat(category));
static cl::opt<double>
    evalFraction("eval-fraction", cl::init(1.0),
                 cl::desc("Fraction of held-out rows priced (fixed seed; "
                          "default: 1)"),
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
        llvm::json::Value(llvm::json::Object{{"schema", "perf.eval_rows/1"},
                                             {"rows", std::move(out)}}));
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

/// One table line; the kind column is `width` wide (8, or the longest op:
/// a perf database's ops are "<kind>.<dtype>").
static void printStats(llvm::raw_ostream &os, llvm::StringRef op,
                       llvm::StringRef gpu, const ErrorStats &s, size_t width) {
  os << llvm::formatv("{0} {1,-10} {2,7} {3,8:P1} {4,8:P1} {5,6:P0} "
                      "{6,6:P0}\n",
                      llvm::left_justify(op, width), gpu, s.count, s.mape,
                      s.gmae, s.within10, s.within25);
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

/// Whether `path` names a perf database (SQLite, docs/perf-db.md) rather
/// than a measurement CSV.
static bool isPerfDatabase(llvm::StringRef path) {
  return path.ends_with(".db") || path.ends_with(".sqlite") ||
         path.ends_with(".sqlite3");
}

static int evaluateFiles() {
  if (inputs.empty())
    return fail("no input CSV files or perf databases (see --help)");
  CostModelOptions options;
  options.mlModelDir = modelDir;
  options.databasePath = dbPath;
  auto stack = createKernelCostStack(modelNames, options);
  if (!stack)
    return reportError("perf-eval", stack.takeError());
  std::vector<KernelMeasurement> rows;
  SkippedOps skipped;
  llvm::StringMap<GpuSpec> devices;
  for (const std::string &file : inputs) {
    if (isPerfDatabase(file)) {
      auto db = readPerfDatabase(file);
      if (!db)
        return reportError("perf-eval", db.takeError());
      // --device=auto prices a database's rows on the figures stored with
      // them (perf-bench --probe), else the catalog's.
      if (deviceOpt == "auto")
        for (const auto &entry : db->devices)
          if (devices.try_emplace(entry.getKey(), entry.getValue()).second)
            llvm::errs() << "perf-eval: device '" << entry.getKey()
                         << "': " << entry.getValue().name << " ("
                         << (entry.getValue().source.empty()
                                 ? std::string("the database's spec")
                                 : entry.getValue().source)
                         << ")\n";
      for (KernelMeasurement &m : db->rows)
        rows.push_back(std::move(m));
      continue;
    }
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
  Evaluation eval;
  std::map<std::string, size_t> pricedBy;
  size_t declined = 0;
  for (const KernelMeasurement &m : rows) {
    auto gpu = deviceFor(m, devices);
    if (!gpu)
      return reportError(
          "perf-eval",
          fileError(m.file, m.line, 0, llvm::toString(gpu.takeError())));
    KernelCost cost = stack->estimate(m.kernel, *gpu);
    // A row no model of the stack prices is left out, not scored as -100%.
    if (cost.model == "none") {
      ++declined;
      continue;
    }
    // Rows that time each kernel alone compare with the isolated price,
    // device busy times (perf-bench's CUPTI rows) with the streamed one.
    PricedRow p{&m, cost.latencyUs + (m.timedAlone ? cost.isolationUs : 0),
                cost.model};
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
  size_t width = 8;
  for (const auto &entry : eval.byOpAndGpu)
    width = std::max(width, entry.first.first.size());
  llvm::outs() << llvm::formatv("{0} {1,-10} {2,7} {3,8} {4,8} {5,6} "
                                "{6,6}\n",
                                llvm::left_justify("kind", width), "gpu",
                                "rows", "MAPE", "GMAE", "<10%", "<25%");
  for (const auto &[key, priced] : eval.byOpAndGpu)
    printStats(llvm::outs(), key.first, key.second, computeErrorStats(priced),
               width);
  printStats(llvm::outs(), "all", "-", computeErrorStats(eval.priced), width);

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
          return reportError(
              "perf-eval",
              fileError(m.file, m.line, 0, llvm::toString(spec.takeError())));
        devices[m.device] = *spec;
      }
      rows.push_back(std::move(m));
    }
  }
  reportSkipped(skipped);

  CrossValidationOptions options;
  options.protocol = inDistribution
                         ? CrossValidationOptions::Protocol::InDistribution
                         : CrossValidationOptions::Protocol::LeaveOneGpuOut;
  llvm::SmallVector<llvm::StringRef> models;
  llvm::StringRef(looModels).split(models, ',', -1, false);
  for (llvm::StringRef name : models)
    options.models.push_back(name.trim().str());
  options.testFraction = testFraction;
  options.fewShot = fewShot;
  options.fewShotWeight = fewShotWeight;
  options.evalFraction = evalFraction;
  options.training.maxRows = maxRows;
  options.training.rounds = rounds;
  options.training.maxDepth = maxDepth;
  options.workDir = workDir;
  if (options.workDir.empty()) {
    llvm::SmallString<128> tmp;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("perf-eval-loo", tmp))
      return fail("cannot create a temporary folder: " + ec.message());
    options.workDir = tmp.str().str();
  }
  auto result = perf::runCrossValidation(rows, devices, options, llvm::errs());
  if (!result)
    return reportError("perf-eval", result.takeError());
  std::vector<std::string> debiasedModels;
  if (debiased)
    for (const std::string &name : options.models)
      if (name == "ml" || name == "tile")
        debiasedModels.push_back(name);
  printCrossValidationTables(*result, options, debiasedModels, llvm::outs());
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  perf::setVersionPrinter("perf-eval");
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "perf-eval: accuracy of the kernel cost models on measured kernels\n\n"
      "  perf-eval --model=tile --device=auto bmm/Tesla_T4.csv.gz\n"
      "  perf-eval --model=auto --device=h200 perf.db\n"
      "  perf-eval --leave-one-out --neusight DIR --models=roofline,tile,ml\n"
      "  perf-eval --in-distribution --neusight DIR --models=ml\n"
      "  perf-eval --leave-one-out --vidur DIR --models=roofline,calibrated\n");
  if (leaveOneOut && inDistribution)
    return fail("--leave-one-out and --in-distribution are exclusive");
  return leaveOneOut || inDistribution ? runCrossValidation() : evaluateFiles();
}
