//===- perf-train.cpp - Train the learned kernel cost models --------------===//
//
// Reads measured latencies (the perf database of docs/perf-db.md, NeuSight
// CSVs and/or Vidur's FP16 layer-op profiles), trains one XGBoost model per
// kernel kind and fits the tile model's coefficients, into a folder the `ml`
// and `tile` models load
// (--perf-kernel-cost=...,model-dir=DIR or CostModelOptions::mlModelDir).
//
//===----------------------------------------------------------------------===//

#include "perf/CostModel/AttentionModel.h"
#include "perf/CostModel/DbModel.h"
#include "perf/CostModel/KernelMeasurements.h"
#include "perf/CostModel/ModelTraining.h"
#include "perf/CostModel/TensorCoreGemmModel.h"
#include "perf/Import/ModelConfigImport.h"
#include "perf/Support/InputError.h"
#include "perf/Support/KernelSignature.h"
#include "perf/Support/Version.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace perf;
namespace cl = llvm::cl;

static cl::OptionCategory category("perf-train options");
// The model folder is --ml-dir in every tool (perf-eval, the estimate
// pipeline's ml-dir); -o stays as its short spelling.
static cl::opt<std::string>
    output("ml-dir", cl::desc("Model folder to write (-o is the same)"),
           cl::value_desc("dir"), cl::cat(category));
static cl::alias outputShort("o", cl::desc("Alias for --ml-dir"),
                             cl::aliasopt(output));
static cl::opt<std::string>
    dbPath("db", cl::desc("Perf database to learn from"), cl::cat(category));
static cl::opt<std::string> neusight("neusight",
                                     cl::desc("NeuSight data folder to learn "
                                              "from"),
                                     cl::cat(category));
static cl::opt<std::string>
    vidur("vidur",
          cl::desc("Vidur profiling folder (<gpu>/<model>.mlp.csv.gz, FP16 "
                   "transformer layer ops) to learn from"),
          cl::cat(category));
static cl::list<std::string> measuredGraphs(
    "measured-graph",
    cl::desc("Perf graph (.mlir/.mlirbc) whose kernels carry measured "
             "latencies, as perf-translate --import-kineto or "
             "--import-pytorch-et --kineto writes: kernels timed inside a "
             "real step on its GPU (repeat the option for several)"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<double> measuredWeight(
    "measured-weight", cl::init(1.0),
    cl::desc("Weight of the --measured-graph rows in the ml loss, as "
             "--db-weight (default: 1)"),
    cl::cat(category));
static cl::list<std::string> fxCsvs(
    "fx",
    cl::desc("NeuSight per-node fx CSV (label/<GPU>/<step>.csv.gz) whose "
             "single-kernel nodes to learn from: kernels timed inside "
             "real steps (repeat the option for several)"),
    cl::value_desc("csv"), cl::cat(category));
static cl::opt<std::string>
    fxDevice("fx-device",
             cl::desc("GPU the --fx node times were measured on (catalog name; "
                      "default: the label folder holding each CSV)"),
             cl::cat(category));
static cl::opt<double>
    fxWeight("fx-weight", cl::init(1.0),
             cl::desc("Weight of the --fx rows in the ml loss, as --db-weight "
                      "(default: 1)"),
             cl::cat(category));
static cl::list<std::string>
    exclude("exclude-device",
            cl::desc("Leave a device out of training (substring match)"),
            cl::cat(category));
static cl::opt<std::string>
    writeDb("write-db",
            cl::desc("Also store the NeuSight, Vidur and --fx rows in this "
                     "perf database"),
            cl::cat(category));
static cl::opt<double> dbWeight(
    "db-weight", cl::init(1.0),
    cl::desc("Weight of the --db rows in the ml loss (e.g. 10 for a few "
             "hundred measurements of a new GPU next to the NeuSight data); "
             "rows weighted above 1 are never subsampled away (default: 1)"),
    cl::cat(category));
static cl::opt<bool> rooflineOnly(
    "roofline-only",
    cl::desc("Write only roofline.json, the calibrated roofline's fits (into "
             "a folder whose ml and tile models were trained on other rows)"),
    cl::cat(category));
static cl::list<std::string> attentionCsvs(
    "attention",
    cl::desc("Fused attention calls timed from the host (attention.csv of "
             "runtime/bench/campaign/attention_sweep.py) to fit the attention "
             "model on (repeat the option for several)"),
    cl::value_desc("csv"), cl::cat(category));
static cl::opt<bool> analyticOnly(
    "analytic-only",
    cl::desc("Write only the analytic models' fits: tensorcore.json from the "
             "tensor-core GEMMs of --db, flash.json (the attention model) from "
             "--attention"),
    cl::cat(category));
static cl::opt<bool> selectModels(
    "select",
    cl::desc("Also hold each GPU out in turn, train on the others and write "
             "selection.json: per kernel kind and number type, the model of "
             "the default stack that priced held-out GPUs best (the "
             "'auto' stack routes kernels on unmeasured GPUs by it)"),
    cl::cat(category));
static cl::opt<unsigned>
    maxRows("max-rows", cl::init(40000),
            cl::desc("ml training rows per kind (default: 40000)"),
            cl::cat(category));
static cl::opt<unsigned> rounds("rounds", cl::init(300),
                                cl::desc("ml boosting rounds (default: 300)"),
                                cl::cat(category));

static int fail(const llvm::Twine &message) {
  return reportError("perf-train", llvm::createStringError(message));
}

static bool excluded(llvm::StringRef device) {
  for (const std::string &e : exclude)
    if (device.contains(e))
      return true;
  return false;
}

/// Writes `value` as `name` in the output folder.
static int writeFit(llvm::StringRef name, const llvm::json::Value &value) {
  if (std::error_code ec = llvm::sys::fs::create_directories(output))
    return fail("cannot create '" + output + "': " + ec.message());
  llvm::SmallString<256> path(output);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return fail("cannot write '" + path + "': " + ec.message());
  os << llvm::formatv("{0:2}", value) << "\n";
  llvm::errs() << "wrote " << path << "\n";
  return 0;
}

/// The catalog's figures of a device the data names ("NVIDIA H200"): the
/// analytic models' efficiencies are fractions of datasheet peaks.
static const GpuSpec *catalogDevice(llvm::StringRef name) {
  if (excluded(name))
    return nullptr;
  return lookupGpu(name);
}

/// Attention calls timed from the host whose time the GPU's work
/// dominates: the H200's host dispatches one SDPA call in about 30 us, and
/// a forward with its autograd backward in about 200 (the sweep's smallest
/// shapes), so the fit takes forward calls of 150 us and more and
/// forward-backward calls of 1000 us and more.
static bool gpuBound(const AttentionMeasurement &call) {
  return call.latencyUs >= (call.withBackward ? 1000.0 : 150.0);
}

/// tensorcore.json from the database's tensor-core GEMMs and flash.json
/// (the attention model) from the attention calls, each fitted on the catalog
/// figures of its devices.
static int fitAnalyticModels(const PerfDbMeasurements &dbRows) {
  TensorCoreGemmParams gemm = fitTensorCoreGemm(dbRows.rows, catalogDevice);
  int64_t gemmRows = 0;
  for (const auto &[type, n] : gemm.rows)
    gemmRows += n;
  if (gemmRows > 0) {
    llvm::errs() << "perf-train: tensorcore fitted on " << gemmRows
                 << " tensor-core GEMMs\n";
    if (int rc = writeFit("tensorcore.json", gemm.toJson()))
      return rc;
  }
  std::vector<AttentionMeasurement> calls;
  for (const std::string &csv : attentionCsvs) {
    auto read = readAttentionCsv(csv);
    if (!read)
      return reportError("perf-train", read.takeError());
    for (AttentionMeasurement &call : *read)
      if (gpuBound(call))
        calls.push_back(std::move(call));
  }
  if (!calls.empty()) {
    // The fixed cost and the memory streaming the calls cannot tell apart
    // from the host's time are the GEMMs' (kernel times measured on the
    // device).
    AttentionParams start;
    start.overheadUs = gemm.overheadUs;
    start.memoryEfficiency = gemm.memoryEfficiency;
    AttentionParams attention = fitAttention(calls, catalogDevice, start);
    llvm::errs() << "perf-train: attention fitted on " << attention.rows
                 << " calls\n";
    if (int rc = writeFit("flash.json", attention.toJson()))
      return rc;
  }
  if (gemmRows == 0 && calls.empty())
    return fail("no tensor-core GEMM in --db and no attention call of a "
                "catalog GPU in --attention to fit");
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  perf::setVersionPrinter("perf-train");
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "perf-train: train the ml and tile kernel cost models\n\n"
      "  perf-train --neusight ../shared/data/kernels/neusight --ml-dir "
      "models\n"
      "  perf-train --vidur ../shared/data/kernels/vidur --ml-dir models-fp16\n"
      "  perf-train --db perf.sqlite --ml-dir models\n");
  if (neusight.empty() && vidur.empty() && dbPath.empty() && fxCsvs.empty() &&
      measuredGraphs.empty() && attentionCsvs.empty())
    return fail("nothing to learn from: give --neusight DIR, --vidur DIR, "
                "--fx CSV, --measured-graph FILE, --attention CSV and/or "
                "--db FILE");
  if (analyticOnly && (rooflineOnly || selectModels))
    return fail("--analytic-only writes the analytic fits alone; it does not "
                "go with --roofline-only or --select");
  if (analyticOnly && output.empty())
    return fail("--analytic-only needs --ml-dir DIR");
  if (output.empty() && writeDb.empty())
    return fail("no output: give --ml-dir DIR (-o DIR) and/or --write-db FILE");
  if (!(dbWeight > 0))
    return fail("--db-weight must be positive");
  if (!(fxWeight > 0))
    return fail("--fx-weight must be positive");
  if (!(measuredWeight > 0))
    return fail("--measured-weight must be positive");
  if (rooflineOnly && selectModels)
    return fail("--select needs the whole folder trained; it does not go "
                "with --roofline-only");

  // Owners of what the training rows point to.
  std::vector<KernelMeasurement> measured;
  llvm::StringMap<GpuSpec> devices;
  std::vector<std::pair<size_t, std::string>> measuredDevice;
  std::vector<TrainingRow> rows;

  if (!neusight.empty() || !vidur.empty()) {
    SkippedOps skipped;
    for (bool isVidur : {false, true}) {
      const std::string &dir = isVidur ? vidur : neusight;
      if (dir.empty())
        continue;
      auto read = isVidur ? readVidurDir(dir, &skipped)
                          : readNeuSightDir(dir, &skipped);
      if (!read)
        return reportError("perf-train", read.takeError());
      for (KernelMeasurement &m : *read) {
        if (!devices.count(m.device)) {
          // NeuSight names devices by their JSON beside the data; Vidur's
          // are catalog names.
          auto spec = neuSightDevice(dir, m.device);
          if (!spec)
            return reportError(
                "perf-train",
                fileError(m.file, m.line, 0, llvm::toString(spec.takeError())));
          devices[m.device] = *spec;
        }
        measured.push_back(std::move(m));
      }
    }
    for (const auto &[op, count] : skipped)
      llvm::errs() << "perf-train: skipped " << count << " rows of operator '"
                   << op << "' (not one kernel perf-train knows)\n";
    for (const KernelMeasurement &m : measured)
      if (!excluded(m.device))
        rows.push_back({&m.kernel, &devices[m.device], m.latencyUs});
  }

  // Kernels timed inside real steps (fx nodes, then traced kernels), on the
  // catalog's spec of the GPU they ran on (the spec perf-opt prices that GPU
  // with).
  std::vector<KernelMeasurement> stepMeasured;
  auto addStep = [&](llvm::Expected<StepKernelMeasurements> read,
                     llvm::StringRef what, llvm::StringRef file) {
    if (!read)
      return reportError("perf-train", read.takeError());
    llvm::errs() << "perf-train: " << read->rows.size() << " " << what << " of "
                 << file << "\n";
    devices.try_emplace(read->device.name, read->device);
    std::move(read->rows.begin(), read->rows.end(),
              std::back_inserter(stepMeasured));
    return 0;
  };
  for (const std::string &csv : fxCsvs)
    if (int rc = addStep(readFxNodeMeasurements(csv, fxDevice),
                         "single-kernel nodes", csv))
      return rc;
  size_t fxRows = stepMeasured.size();
  for (const std::string &graph : measuredGraphs)
    if (int rc =
            addStep(readMeasuredGraphKernels(graph), "measured kernels", graph))
      return rc;
  for (size_t i = 0; i < stepMeasured.size(); ++i) {
    const KernelMeasurement &m = stepMeasured[i];
    if (!excluded(m.device))
      rows.push_back({&m.kernel, &devices[m.device], m.latencyUs,
                      i < fxRows ? fxWeight : measuredWeight});
  }

  if (!writeDb.empty()) {
    auto db = PerfDatabase::openForWriting(writeDb);
    if (!db)
      return reportError("perf-train", db.takeError());
    if (auto e = (*db)->begin())
      return reportError("perf-train", std::move(e));
    for (auto &entry : devices)
      if (auto e = (*db)->addDevice(
              entry.second.name,
              llvm::formatv("{0}", toJson(entry.second)).str()))
        return reportError("perf-train", std::move(e));
    for (const KernelMeasurement &m :
         llvm::concat<const KernelMeasurement>(measured, stepMeasured)) {
      PerfDbEntry e{devices[m.device].name, dtypeName(m.kernel.dtype).str(),
                    kernelKindName(m.kernel.kind).str(),
                    kernelSignature(m.kernel), m.latencyUs};
      e.kernelName = m.kernel.name;
      e.source = m.source;
      if (auto err = (*db)->addKernel(e))
        return reportError("perf-train", std::move(err));
    }
    if (auto e = (*db)->commit())
      return reportError("perf-train", std::move(e));
    llvm::errs() << "wrote " << measured.size() + stepMeasured.size()
                 << " rows to " << writeDb << "\n";
  }

  // The database's rows, on the spec stored with them (perf-bench --probe)
  // or the catalog's; GEMMs and convolutions in TF32, FP16 and BF16 on
  // tensor cores (runsOnTensorCores), as perf-opt prices them.
  PerfDbMeasurements dbRows;
  if (!dbPath.empty()) {
    auto read = readPerfDatabase(dbPath, excluded);
    if (!read)
      return reportError("perf-train", read.takeError());
    dbRows = std::move(*read);
    for (const KernelMeasurement &m : dbRows.rows) {
      devices.try_emplace(m.device, dbRows.devices[m.device]);
      rows.push_back({&m.kernel, &devices[m.device], m.latencyUs, dbWeight});
    }
  }

  if (output.empty())
    return 0;
  if (analyticOnly)
    return fitAnalyticModels(dbRows);
  if (rows.empty())
    return fail("no training rows left after --exclude-device");
  MlTrainOptions options;
  options.maxRows = maxRows;
  options.rounds = rounds;
  options.rooflineOnly = rooflineOnly;
  options.select = selectModels;
  if (auto e = trainModelDirectory(rows, output, options, llvm::errs()))
    return reportError("perf-train", std::move(e));
  return 0;
}
