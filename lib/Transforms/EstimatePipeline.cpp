//===- EstimatePipeline.cpp - The default cost pipeline -------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace perf;
using namespace mlir;

void perf::buildEstimatePipeline(OpPassManager &pm,
                                 const EstimateOptions &options) {
  KernelCostOptions cost;
  cost.models = options.models;
  cost.computeEfficiency = options.computeEfficiency;
  cost.memoryEfficiency = options.memoryEfficiency;
  cost.database = options.database;
  cost.mlModelDir = options.mlModelDir;
  cost.retarget = options.retarget;
  pm.addPass(createKernelCost(cost));
  // Does nothing on a graph without collectives.
  CommCostOptions comm;
  comm.system = options.system;
  pm.addNestedPass<GraphOp>(createCommCost(comm));
  HostOverheadOptions overhead;
  overhead.table = options.overheads;
  overhead.scale = options.hostScale;
  pm.addNestedPass<GraphOp>(createHostOverhead(overhead));
  CriticalPathOptions criticalPath;
  criticalPath.annotate = options.annotate;
  criticalPath.iterations = options.iterations;
  criticalPath.timeline = options.timeline;
  criticalPath.launchList = options.launchList;
  pm.addPass(createCriticalPath(criticalPath));
  ReportOptions report;
  report.format = options.format;
  report.output = options.output;
  report.kernelList = options.kernelList;
  pm.addPass(createReport(report));
}

namespace {
/// A temporary file a pass writes and the caller reads back, removed when
/// it goes out of scope.
struct ScratchFile {
  llvm::SmallString<128> path;
  std::optional<llvm::FileRemover> remover;
  llvm::Error create(llvm::StringRef prefix) {
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile(prefix, "json", path))
      return llvm::createStringError(ec, "cannot create a temporary file");
    remover.emplace(path);
    return llvm::Error::success();
  }
  llvm::Expected<std::string> read() const {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer)
      return llvm::createStringError(buffer.getError(),
                                     "cannot read " + path + " back");
    return (*buffer)->getBuffer().str();
  }
};
} // namespace

/// Splits a textual pass list at its top-level commas: commas inside
/// `{options}`, `(nested pipelines)` and quotes belong to their element.
static SmallVector<StringRef> splitPassList(StringRef text) {
  SmallVector<StringRef> elements;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '\'' || c == '"')
      quote = c;
    else if (c == '{' || c == '(')
      ++depth;
    else if ((c == '}' || c == ')') && depth > 0)
      --depth;
    else if (c == ',' && depth == 0) {
      elements.push_back(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  elements.push_back(text.drop_front(start).trim());
  return elements;
}

LogicalResult perf::parsePassList(StringRef pipeline, OpPassManager &pm,
                                  raw_ostream &errorStream) {
  StringRef graphName = GraphOp::getOperationName();
  std::optional<StringRef> pmName = pm.getOpName();
  for (StringRef element : splitPassList(pipeline)) {
    if (element.empty())
      continue;
    // An op-agnostic pass manager takes any pass, so it shows which
    // operation the element's passes are anchored on.
    OpPassManager probe;
    if (failed(parsePassPipeline(element, probe, errorStream)))
      return failure();
    bool perGraph =
        probe.size() != 0 && llvm::all_of(probe.getPasses(), [&](Pass &pass) {
          return pass.getOpName() == graphName;
        });
    OpPassManager &target =
        perGraph && pmName && *pmName != graphName ? pm.nest(graphName) : pm;
    if (failed(parsePassPipeline(element, target, errorStream)))
      return failure();
  }
  return success();
}

llvm::Expected<EstimateResult> perf::runEstimate(ModuleOp module,
                                                 llvm::StringRef device,
                                                 llvm::StringRef pipeline,
                                                 EstimateOptions options,
                                                 bool withTimeline) {
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    diagStream << d.getLocation() << ": " << d.str() << "\n";
    return success();
  });
  ScratchFile report, timeline;
  if (llvm::Error e = report.create("perf-report"))
    return std::move(e);
  if (withTimeline)
    if (llvm::Error e = timeline.create("perf-timeline"))
      return std::move(e);

  // Passes that work per graph nest under perf.graph.
  PassManager pm(module.getContext(), ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  if (!device.empty()) {
    SetTargetOptions target;
    (device.ends_with(".json") ? target.deviceFile : target.device) =
        device.str();
    pm.addPass(createSetTarget(target));
  }
  if (!pipeline.empty() && failed(parsePassList(pipeline, pm, diagStream)))
    return llvm::createStringError(llvm::StringRef(diagnostics).trim());
  options.format = "json";
  options.output = report.path.str().str();
  options.timeline = withTimeline ? timeline.path.str().str() : "";
  buildEstimatePipeline(pm, options);
  if (failed(pm.run(module)))
    return llvm::createStringError(llvm::StringRef(diagnostics).trim());
  EstimateResult result;
  llvm::Expected<std::string> text = report.read();
  if (!text)
    return text.takeError();
  result.report = std::move(*text);
  if (withTimeline) {
    llvm::Expected<std::string> trace = timeline.read();
    if (!trace)
      return trace.takeError();
    result.timeline = std::move(*trace);
  }
  return result;
}

namespace {
struct EstimatePipelineOptions
    : public PassPipelineOptions<EstimatePipelineOptions> {
  Option<std::string> models{*this, "models",
                             llvm::cl::desc("Kernel cost model order")};
  Option<std::string> database{
      *this, "db", llvm::cl::desc("Perf database (SQLite) of the db model")};
  Option<std::string> mlModelDir{
      *this, "ml-dir",
      llvm::cl::desc("Model folder (perf-train -o) of the ml and tile models")};
  Option<unsigned> iterations{
      *this, "iterations",
      llvm::cl::desc("Back-to-back steps for the steady-state step time")};
  Option<std::string> overheads{*this, "overheads",
                                llvm::cl::desc("Host overhead table (JSON)")};
  Option<std::string> format{*this, "format",
                             llvm::cl::desc("Report format: text or json")};
  Option<std::string> output{
      *this, "output",
      llvm::cl::desc("Report file (default '-': stdout, or stderr when the "
                     "IR goes to stdout)")};
  Option<std::string> system{
      *this, "system",
      llvm::cl::desc("System of the collectives: preset or JSON file")};
  Option<std::string> retarget{
      *this, "retarget",
      llvm::cl::desc("How measured kernels move to another GPU: ratio, "
                     "shrunk or wave")};
  Option<double> hostScale{*this, "host-scale",
                           llvm::cl::desc("Factor on every host overhead")};
  Option<std::string> timeline{
      *this, "timeline",
      llvm::cl::desc("Also write the predicted schedule as Chrome Trace "
                     "Event JSON (Perfetto, chrome://tracing)")};
  Option<std::string> kernelList{
      *this, "kernel-list",
      llvm::cl::desc("Also write the distinct kernels as a JSON kernel list "
                     "(perf-bench --from)")};
  Option<std::string> launchList{
      *this, "launch-list",
      llvm::cl::desc("Also write every graph's launches in order, with "
                     "their streams and waits, as a JSON launch list")};
};
} // namespace

void perf::registerPerfPassesAndPipelines(
    std::function<EstimateOptions()> defaults) {
  registerPerfPasses();
  PassPipelineRegistration<EstimatePipelineOptions>(
      "estimate",
      "Prices every kernel and host overhead, computes the critical path and "
      "prints the report",
      [defaults](OpPassManager &pm, const EstimatePipelineOptions &opts) {
        EstimateOptions options = defaults ? defaults() : EstimateOptions();
        if (opts.models.hasValue())
          options.models = opts.models;
        if (opts.database.hasValue())
          options.database = opts.database;
        if (opts.mlModelDir.hasValue())
          options.mlModelDir = opts.mlModelDir;
        if (opts.iterations.hasValue())
          options.iterations = opts.iterations;
        if (opts.overheads.hasValue())
          options.overheads = opts.overheads;
        if (opts.format.hasValue())
          options.format = opts.format;
        if (opts.output.hasValue())
          options.output = opts.output;
        if (opts.system.hasValue())
          options.system = opts.system;
        if (opts.retarget.hasValue())
          options.retarget = opts.retarget;
        if (opts.hostScale.hasValue())
          options.hostScale = opts.hostScale;
        if (opts.timeline.hasValue())
          options.timeline = opts.timeline;
        if (opts.launchList.hasValue())
          options.launchList = opts.launchList;
        if (opts.kernelList.hasValue())
          options.kernelList = opts.kernelList;
        buildEstimatePipeline(pm, options);
      });
}
