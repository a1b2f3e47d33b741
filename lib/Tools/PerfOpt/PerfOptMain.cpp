//===- PerfOptMain.cpp - The perf-opt driver ------------------------------===//
//
// mlir-opt's driver (MlirOptMain) with the perf passes and pipelines, plus
// what the main job needs around it: `--estimate` prints the report (the
// IR only when -o is given) and, without an output file, parses, prices and
// drops the graph without printing it; `--perf-device`/`--perf-device-file`
// retarget every graph before each pass; an .onnx input is imported first;
// `--list-devices` prints the GPU catalog. docs/estimate.md documents each.
//
//===----------------------------------------------------------------------===//

#include "perf/Tools/PerfOptMain.h"
#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "perf/CostModel/KernelCostModel.h"
#include "perf/Dialect/InputDiagnostics.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Support/GpuSpec.h"
#include "perf/Support/HostOverheadTable.h"
#include "perf/Support/HugePages.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Limits.h"
#include "perf/Support/ToolOptions.h"
#include "perf/Support/Version.h"
#include "perf/Tools/Registration.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/ReportOutput.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BuryPointer.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include <cstdlib>

using namespace mlir;

static llvm::cl::OptionCategory perfCategory("perf options");

static llvm::cl::opt<std::string>
    perfDevice("perf-device",
               llvm::cl::desc("Target GPU for every graph (catalog name)"),
               llvm::cl::cat(perfCategory));
static llvm::cl::opt<std::string> perfDeviceFile(
    "perf-device-file",
    llvm::cl::desc("Target GPU for every graph, read from a device JSON file"),
    llvm::cl::cat(perfCategory));
// The estimate's options are the pipeline's (`--estimate="models=roofline
// format=json"`, docs/estimate.md). These spellings of them are kept,
// hidden, for scripts written before; each use prints the pipeline form.
static llvm::cl::opt<std::string> estimateFormat("estimate-format",
                                                 llvm::cl::Hidden);
static llvm::cl::opt<std::string> estimateModels("estimate-models",
                                                 llvm::cl::Hidden);
static llvm::cl::opt<std::string> estimateDb("estimate-db", llvm::cl::Hidden);
static llvm::cl::opt<std::string> estimateMlDir("estimate-ml-dir",
                                                llvm::cl::Hidden);
static llvm::cl::opt<unsigned> estimateIterations("estimate-iterations",
                                                  llvm::cl::Hidden);
static llvm::cl::opt<std::string> estimateOverheads("estimate-overheads",
                                                    llvm::cl::Hidden);
static llvm::cl::opt<std::string> retargetMethod("retarget", llvm::cl::Hidden);
static llvm::cl::opt<double> hostScale("host-scale", llvm::cl::Hidden);

/// Warns once per deprecated estimate flag given, naming its pipeline form:
/// the flag's name without "estimate-".
static void warnDeprecatedEstimateFlags() {
  llvm::cl::Option *flags[] = {
      &estimateFormat,     &estimateModels,    &estimateDb,     &estimateMlDir,
      &estimateIterations, &estimateOverheads, &retargetMethod, &hostScale};
  for (llvm::cl::Option *flag : flags) {
    if (flag->getNumOccurrences() == 0)
      continue;
    llvm::StringRef name = flag->ArgStr;
    llvm::StringRef key = name;
    key.consume_front("estimate-");
    llvm::errs() << "perf-opt: warning: --" << name
                 << " is deprecated; give it to the pipeline: --estimate=\""
                 << key << "=...\" (docs/estimate.md)\n";
  }
}

/// The model folder --estimate uses when none is given (defaultModelDir):
/// an installed perf-opt reads the folder installed beside it, a built one
/// the source tree's.
/// Found once: every build of the pipeline asks (the command line's is
/// built twice), and each answer reads the links of the binary's path.
static const std::string &shippedModelDir() {
  static const std::string dir = [] {
    std::string self = llvm::sys::fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&shippedModelDir));
    return perf::defaultModelDir(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(self)));
  }();
  return dir;
}

static llvm::cl::opt<bool> listHosts(
    "list-hosts",
    llvm::cl::desc("Print the host catalog (the names --estimate=overheads= "
                   "and --perf-host-overhead=table= accept) and exit"),
    llvm::cl::cat(perfCategory));

/// One line per catalog host: its name, the host time per call of the ops
/// a step calls most, its per-block overhead and where its figures come
/// from.
static void printHosts(llvm::raw_ostream &os) {
  std::string dir = perf::hostCatalogDir();
  os << "host catalog: " << (dir.empty() ? std::string("none") : dir) << "\n";
  os << llvm::format("%-16s %9s %9s %9s %9s  %s\n", "name", "launch us",
                     "linear us", "add us", "layer us", "source");
  for (const perf::CatalogHost &host : perf::hostCatalog()) {
    if (!host.table) {
      // A broken file is named, not skipped: the user put it there.
      llvm::errs() << "perf-opt: warning: host '" << host.name
                   << "': " << host.error << "\n";
      continue;
    }
    const perf::HostOverheadTable &table = *host.table;
    auto opUs = [&](llvm::StringRef op) {
      return table.get(op, perf::Overhead::T1) +
             table.get(op, perf::Overhead::T2) +
             table.get(op, perf::Overhead::T3) +
             table.runtimeCall("cudaLaunchKernel");
    };
    os << llvm::format("%-16s %9.1f %9.1f %9.1f %9.1f  ", host.name.c_str(),
                       table.runtimeCall("cudaLaunchKernel"),
                       opUs("aten::addmm"), opUs("aten::add"), table.layerUs)
       << table.source << "\n";
  }
}

static llvm::cl::opt<bool> listDevices(
    "list-devices",
    llvm::cl::desc("Print the built-in GPU catalog (the names --perf-device "
                   "accepts) and exit"),
    llvm::cl::cat(perfCategory));

/// One line per catalog GPU: the figures the cost models lean on most, the
/// other names it answers to and the datasheet they come from.
static void printCatalog(llvm::raw_ostream &os) {
  os << llvm::format("%-16s %5s %6s %9s %9s %9s %8s  %s\n", "name", "SMs",
                     "MHz", "fp32 TF", "tc16 TF", "mem GB/s", "mem GiB",
                     "aliases; source");
  for (const perf::GpuSpec &g : perf::gpuCatalog()) {
    os << llvm::format("%-16s %5u %6.0f %9.1f %9.1f %9.0f %8.0f  ",
                       g.name.c_str(), g.numSMs, g.clockMHz, g.fp32Flops / 1e12,
                       g.tensorF16Flops / 1e12, g.memBandwidth / 1e9,
                       g.memBytes / (1024.0 * 1024 * 1024));
    os << llvm::join(perf::gpuCatalogAliases(g.name), ", ") << "; " << g.source
       << "\n";
  }
}

static llvm::cl::opt<int64_t>
    onnxBatch("onnx-batch",
              llvm::cl::desc("Batch size of an .onnx input (default: the "
                             "model's)"),
              llvm::cl::init(0), llvm::cl::cat(perfCategory));

static bool estimateOnly = false;
/// How many times the estimate pipeline was built (its defaults asked for).
static unsigned estimatesBuilt = 0;

/// What the command line's pass pipeline holds. It is built once before the
/// input is read, so a bad pipeline is the first error and the output can be
/// routed by what the pipeline does rather than by how it was spelt
/// (--estimate, --pass-pipeline, an alias).
struct PipelineShape {
  unsigned estimates = 0;
  unsigned kernelCostPasses = 0;
};

/// Builds the pipeline on `context`, which an estimate then reads its input
/// into (a context makes the builtin dialect's types and attributes, 4% of
/// a small estimate), and leaves the context's diagnostic handlers as they
/// were.
static FailureOr<PipelineShape>
inspectPipeline(MLIRContext &context, const MlirOptMainConfig &config) {
  DiagnosticEngine::HandlerID unlocated =
      perf::printUnlocatedDiagnosticsAs(&context, "perf-opt");
  llvm::scope_exit restore(
      [&] { context.getDiagEngine().eraseHandler(unlocated); });
  PassManager pm(&context, ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  estimatesBuilt = 0;
  if (failed(config.setupPassPipeline(pm)))
    return failure();
  std::string order;
  llvm::raw_string_ostream orderStream(order);
  if (failed(perf::checkLayoutOrder(pm, orderStream))) {
    perf::reportError("perf-opt", llvm::createStringError(order));
    return failure();
  }
  PipelineShape shape;
  shape.estimates = estimatesBuilt;
  shape.kernelCostPasses =
      llvm::count(perf::pipelinePassNames(pm), "perf-kernel-cost");
  return shape;
}

/// Prints `message` in the one error format; the exit status.
static int fail(const llvm::Twine &message) {
  return perf::reportError("perf-opt", llvm::createStringError(message));
}

static std::unique_ptr<llvm::MemoryBuffer> openInput(llvm::StringRef path) {
  auto input = perf::readInputFile(path);
  if (!input) {
    perf::reportError("perf-opt", input.takeError());
    return nullptr;
  }
  return std::move(*input);
}

/// An .onnx input is imported by perf-translate --import-onnx, run beside
/// this binary, and its bytecode (with the node locations) becomes the
/// input of the pipeline. ONNX and protobuf stay perf-translate's: linked
/// here, they were loaded at every start of perf-opt (2-3 ms of a 9 ms
/// start) whether the input was a model or not. The importer's diagnostics
/// are its own, on stderr.
static std::unique_ptr<llvm::MemoryBuffer> importOnnx(llvm::StringRef path,
                                                      const char *argv0) {
  auto fail = [&](const llvm::Twine &message) {
    llvm::errs() << "perf-opt: error: " << message << "\n";
    return nullptr;
  };
  std::string self = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&importOnnx));
  llvm::SmallString<256> translate(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(translate, "perf-translate");
  if (!llvm::sys::fs::can_execute(translate))
    return fail("reading '" + path +
                "' needs perf-translate beside perf-opt (" + translate +
                " is missing); or run perf-translate " +
                "--import-onnx yourself and give perf-opt its output");
  llvm::SmallString<128> imported;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "perf-opt-onnx", "mlirbc", imported))
    return fail("cannot create a temporary file: " + ec.message());
  llvm::FileRemover remover(imported);
  std::string batch = "--onnx-batch=" + std::to_string(onnxBatch);
  llvm::SmallVector<llvm::StringRef> args = {
      translate, "--import-onnx", path, "--emit-bytecode", "-o", imported};
  if (onnxBatch.getNumOccurrences())
    args.push_back(batch);
  std::string error;
  int status = llvm::sys::ExecuteAndWait(translate, args, std::nullopt, {},
                                         /*SecondsToWait=*/0,
                                         /*MemoryLimit=*/0, &error);
  if (status < 0)
    return fail("running " + translate + " on '" + path + "': " + error);
  if (status != 0) // perf-translate said why
    return nullptr;
  auto bytes = llvm::MemoryBuffer::getFile(imported);
  if (!bytes)
    return fail("reading the import of '" + path +
                "': " + bytes.getError().message());
  return llvm::MemoryBuffer::getMemBufferCopy((*bytes)->getBuffer(), path);
}

/// --perf-device: before every pass, every graph of the module targets the
/// chosen GPU, so graphs that passes create (conversions, imports) are
/// retargeted too.
namespace {
struct RetargetGraphs : public PassInstrumentation {
  explicit RetargetGraphs(perf::GpuSpec spec) : spec(std::move(spec)) {}
  void runBeforePass(Pass *, Operation *op) override {
    // A pass that works per graph runs on the graph itself.
    if (auto graph = dyn_cast<perf::GraphOp>(op)) {
      perf::GpuAttr gpu = perf::GpuAttr::get(op->getContext(), spec);
      if (graph.getTargetAttr() != gpu)
        graph.setTargetAttr(gpu);
      return;
    }
    auto module = dyn_cast<ModuleOp>(op);
    if (!module)
      return;
    // The attribute is made only once a graph exists: a module without one
    // (an empty file) has not loaded the perf dialect.
    perf::GpuAttr gpu;
    for (perf::GraphOp graph : module.getOps<perf::GraphOp>()) {
      if (!gpu)
        gpu = perf::GpuAttr::get(op->getContext(), spec);
      if (graph.getTargetAttr() != gpu)
        graph.setTargetAttr(gpu);
    }
  }
  perf::GpuSpec spec;
};

/// Before every pass, the heap the last one grew is advised for huge pages
/// (perf::tuneHeapForLargeGraphs): the analyses of a large step allocate
/// arrays of hundreds of MB.
struct AdviseHeapGrowth : public PassInstrumentation {
  void runBeforePass(Pass *, Operation *) override { perf::adviseHeapGrowth(); }
};
} // namespace

/// Reads and verifies the input of an estimate. Bytecode is read with its
/// graphs' bodies loaded after the rest of the file (MLIR's lazy loading):
/// the eager reader puts every value's uses back in the order they were
/// written, numbering every op of the file in a hash map to do it, and no
/// estimate reads the order of a value's uses. The module is verified once
/// every body is read. Text goes to MLIR's parser.
static OwningOpRef<ModuleOp>
parseForEstimate(const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                 MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
  if (!isBytecode(buffer->getMemBufferRef()))
    return parseSourceFile<ModuleOp>(*sourceMgr, ParserConfig(context));
  Location fileLoc =
      FileLineColLoc::get(context, buffer->getBufferIdentifier(), 0, 0);
  ParserConfig config(context, /*verifyAfterParse=*/false);
  BytecodeReader reader(buffer->getMemBufferRef(), config, /*lazyLoad=*/true,
                        sourceMgr);
  Block block;
  auto loadNow = [](Operation *op) { return !isa<perf::GraphOp>(op); };
  if (failed(reader.readTopLevel(&block, loadNow)) || failed(reader.finalize()))
    return nullptr;
  OwningOpRef<ModuleOp> module =
      detail::constructContainerOpForParserIfNecessary<ModuleOp>(
          &block, context, fileLoc);
  if (module && failed(verify(*module)))
    return nullptr;
  return module;
}

/// Grows the heap ahead of the parse by about what the input's IR takes
/// (perf::reserveHeap): on bench/speed's steps, about 30 times a bytecode
/// file without locations and 3.5 times a text file.
/// From 64 MB of IR on, a thread backs the heap's pages ahead of the
/// allocations (perf::backHeapAhead), on the core the parse leaves idle;
/// below that, starting it costs more than it saves.
static void reserveHeapFor(const llvm::MemoryBuffer &input) {
  size_t size = input.getBufferSize();
  size_t bytes = isBytecode(input.getMemBufferRef()) ? 32 * size : 4 * size;
  perf::reserveHeap(bytes);
  if (bytes >= (size_t(64) << 20))
    perf::backHeapAhead();
}

/// Parses `input`, runs the pass pipeline of the command line and prints
/// nothing but the report (and any diagnostics, located). -mlir-timing
/// reports the parse (with the verifier) beside the passes.
///
/// The context and the module are left to the process's exit: freeing a
/// million-kernel graph op by op and its uniqued attributes one by one costs
/// a tenth of the run and frees nothing anyone reads again. (BuryPointer
/// keeps them reachable, so a leak checker does not report them.)
static LogicalResult runEstimateOnly(std::unique_ptr<llvm::MemoryBuffer> input,
                                     MLIRContext *context,
                                     const MlirOptMainConfig &config) {
  estimateOnly = true;
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope root = timing.getRootScope();
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  context->allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
  SourceMgrDiagnosticHandler diagnostics(*sourceMgr, context);
  TimingScope parseTiming = root.nest("Parser");
  OwningOpRef<ModuleOp> module = parseForEstimate(sourceMgr, context);
  parseTiming.stop();
  if (!module)
    return failure();
  // Passes that work per graph nest under perf.graph, as MlirOptMain nests
  // them.
  PassManager pm(context, ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  // The parser verified the input; the cost passes only add attributes, so
  // re-verifying every op after each of them would double the time.
  pm.enableVerifier(false);
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  pm.enableTiming(root);
  if (failed(config.setupPassPipeline(pm)))
    return failure();
  LogicalResult result = pm.run(*module);
  llvm::BuryPointer(module.release().getOperation());
  return result;
}

int perf::perfOptMain(int argc, char **argv, DialectRegistry &registry) {
  // The linked libraries' options stay out of --help; perf-opt's and the
  // MLIR driver's, registered below, are listed.
  perf::LibraryOptions libraryOptions;
  perf::setVersionPrinter("perf-opt");
  perf::registerPerfPassesAndPipelines([] {
    // The pipeline's defaults: the deprecated flags where given, and the
    // shipped model folder.
    perf::EstimateOptions options;
    if (!estimateFormat.empty())
      options.report.format = estimateFormat;
    // With no model flags, the learned stack on the shipped (or given)
    // folder; the roofline alone where there is none.
    perf::KernelCostOptions &cost = options.kernelCost;
    cost.mlModelDir = estimateMlDir;
    if (cost.mlModelDir.empty() && estimateModels.empty())
      cost.mlModelDir = shippedModelDir();
    if (!estimateModels.empty())
      cost.models = estimateModels;
    else if (!cost.mlModelDir.empty())
      cost.models = perf::kAutoModelStack;
    options.hostOverhead.table = estimateOverheads;
    cost.database = estimateDb;
    if (estimateIterations.getNumOccurrences())
      options.criticalPath.iterations = estimateIterations;
    if (retargetMethod.getNumOccurrences())
      cost.retarget = retargetMethod;
    if (hostScale.getNumOccurrences())
      options.hostOverhead.scale = hostScale;
    options.criticalPath.annotate = !estimateOnly;
    ++estimatesBuilt;
    return options;
  });
  perf::registerPerfToolPasses();

  std::string helpHeader = registerCLIOptions(
      "perf-opt: estimates steps and runs the perf passes\n\n"
      "  perf-opt --estimate examples/mlp_training.mlir\n"
      "  perf-opt --perf-device=H100 --perf-data-parallel=devices=8 "
      "--estimate step.mlir\n",
      registry);
  libraryOptions.hide({&perfCategory});
  // Errors on a whole module would otherwise print the module after the
  // one-line message; -mlir-print-op-on-diagnostic brings that back.
  if (auto *printOp = static_cast<llvm::cl::opt<bool> *>(
          llvm::cl::getRegisteredOptions().lookup(
              "mlir-print-op-on-diagnostic")))
    printOp->setInitialValue(false);
  auto [inputFilename, outputFilename] =
      parseCLIOptions(argc, argv, helpHeader);
  if (listHosts) {
    printHosts(llvm::outs());
    return 0;
  }
  if (listDevices) {
    printCatalog(llvm::outs());
    return 0;
  }
  warnDeprecatedEstimateFlags();
  if (onnxBatch.getNumOccurrences() &&
      (onnxBatch <= 0 || !perf::withinLimit(onnxBatch, perf::kMaxExtent))) {
    return fail("--onnx-batch must be from 1 to " +
                llvm::Twine(perf::kMaxExtent.max) + ", got " +
                llvm::Twine(int64_t(onnxBatch)));
  }
  if (!perfDevice.empty() && !perfDeviceFile.empty()) {
    return fail("give only one of --perf-device and --perf-device-file");
  }

  // A bad device is reported before any IR is read.
  std::optional<perf::GpuSpec> target;
  if (!perfDevice.empty() || !perfDeviceFile.empty()) {
    llvm::Expected<perf::GpuSpec> spec =
        perfDevice.empty() ? perf::loadGpuSpecFile(perfDeviceFile)
                           : perf::lookupGpuOrError(perfDevice);
    if (!spec)
      return perf::reportError("perf-opt", spec.takeError());
    target = *spec;
  }

  MlirOptMainConfig base = MlirOptMainConfig::createFromCLOptions();
  MlirOptMainConfig config = base;
  // The context the pipeline is inspected on, and an estimate's. It is left
  // to the process's exit, as the estimate's module is.
  auto *context = new MLIRContext(registry);
  llvm::BuryPointer(context);
  FailureOr<PipelineShape> pipeline = inspectPipeline(*context, base);
  if (failed(pipeline))
    return 1;
  // --estimate prices every kernel itself; a --perf-kernel-cost before it
  // would be overwritten by the estimate's own models without a word.
  if (pipeline->estimates > 0 &&
      pipeline->kernelCostPasses > pipeline->estimates) {
    return fail("--estimate prices the kernels itself: give its models as "
                "--estimate=\"models=... db=... ml-dir=...\" instead of "
                "--perf-kernel-cost");
  }
  // Pass options are checked before any op runs, with no place to point
  // at: they print as perf-opt's other errors without one (not in
  // -verify-diagnostics runs, which expect every diagnostic).
  llvm::SmallPtrSet<MLIRContext *, 2> unlocatedHandled;
  config.setPassPipelineSetupFn([&](PassManager &pm) -> LogicalResult {
    if (!config.shouldVerifyDiagnostics() &&
        unlocatedHandled.insert(pm.getContext()).second)
      perf::printUnlocatedDiagnosticsAs(pm.getContext(), "perf-opt");
    pm.addInstrumentation(std::make_unique<AdviseHeapGrowth>());
    if (target) {
      perf::SetTargetOptions options;
      options.device = perfDevice;
      options.deviceFile = perfDeviceFile;
      pm.addPass(perf::createSetTarget(options));
      pm.addInstrumentation(std::make_unique<RetargetGraphs>(*target));
    }
    return base.setupPassPipeline(pm);
  });

  // Where output goes (docs/estimate.md, "Where output goes"): with
  // --estimate the report is the answer and the IR is printed only when -o
  // names a file (`-o -`: stdout); without it the IR goes to -o (default
  // stdout). Reports go to stdout unless the IR does, then to stderr, so
  // the IR still pipes into the next tool.
  bool estimate = pipeline->estimates > 0;
  llvm::cl::Option *outputOption = llvm::cl::getRegisteredOptions().lookup("o");
  bool explicitOutput = outputOption && outputOption->getNumOccurrences() > 0;
  bool printsIR = !estimate || explicitOutput;
  if (printsIR && outputFilename == "-")
    perf::setStandardReportStream(llvm::errs());

  std::unique_ptr<llvm::MemoryBuffer> input =
      llvm::StringRef(inputFilename).ends_with(".onnx")
          ? importOnnx(inputFilename, argv[0])
          : openInput(inputFilename);
  if (!input)
    return 1;
  reserveHeapFor(*input);
  // Without an output file the estimate parses, prices and drops the graph:
  // no per-op times are written and nothing is printed, which is most of
  // the time on large graphs.
  if (!printsIR) {
    if (!config.shouldVerifyDiagnostics() && config.inputSplitMarker().empty())
      return failed(runEstimateOnly(std::move(input), context, config)) ? 1 : 0;
    return failed(
               MlirOptMain(llvm::nulls(), std::move(input), registry, config))
               ? 1
               : 0;
  }

  // The IR goes to a temporary file renamed over the output once the
  // pipeline succeeded: a failed or interrupted run leaves no partial file.
  bool pipelineFailed = false;
  llvm::Error written = llvm::writeToOutput(
      outputFilename, [&](llvm::raw_ostream &os) -> llvm::Error {
        if (failed(MlirOptMain(os, std::move(input), registry, config))) {
          pipelineFailed = true;
          return llvm::make_error<llvm::StringError>(
              "failed", llvm::inconvertibleErrorCode());
        }
        return llvm::Error::success();
      });
  if (pipelineFailed) {
    llvm::consumeError(std::move(written));
    return 1;
  }
  if (written)
    return perf::reportError("perf-opt", std::move(written));
  return 0;
}
