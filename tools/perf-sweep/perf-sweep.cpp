//===- perf-sweep.cpp - One model over a grid of hardware settings --------===//
//
// Estimates one model at every point of a grid of hardware settings and
// system architectures, by default the grid of Table III of Wang et al.,
// "Characterizing Deep Learning Training Workloads on Alibaba-PAI" (IISWC
// 2019): Ethernet {10, 25, 100} Gb/s, PCIe {10, 50} GB/s, GPU peak
// {8, 16, 32, 64} TFLOP/s, GPU memory {1, 2, 4} TB/s, for the PS/Worker,
// AllReduce-Local and AllReduce-Cluster architectures. Every point runs the
// optional parallelism pipeline (or, without one, the architecture rewrite
// --perf-pai-architecture, so the critical path sees PS/Worker pulls and
// pushes or the all_reduce), the cost passes, the critical path and the PAI
// breakdown on its own copy of the module; points run on all cores.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "perf/Comm/SystemSpec.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Limits.h"
#include "perf/Support/Version.h"
#include "perf/Tools/Registration.h"
#include "perf/Transforms/GraphWalk.h"
#include "perf/Transforms/MemoryAnalysis.h"
#include "perf/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>

using namespace mlir;
using namespace perf;

static llvm::cl::OptionCategory category("perf-sweep options");
static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::desc("<model.mlir>"),
                                            llvm::cl::Required,
                                            llvm::cl::cat(category));
static llvm::cl::opt<std::string> pipelineOpt(
    "pipeline",
    llvm::cl::desc("Passes run first at every point, in textual pipeline "
                   "form, e.g. 'perf-data-parallel{devices=8}'; several "
                   "parallelism settings separated by ';' are one more "
                   "axis of the grid ('none': no passes)"),
    llvm::cl::init(""), llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    archsOpt("arch", llvm::cl::desc("Comma-separated PAI architectures"),
             llvm::cl::init("ps-worker,allreduce-local,allreduce-cluster"),
             llvm::cl::cat(category));
static llvm::cl::opt<int> workersOpt("workers",
                                     llvm::cl::desc("Replicas (cNodes)"),
                                     llvm::cl::init(8),
                                     llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    systemOpt("system", llvm::cl::desc("Base system (preset or JSON file)"),
              llvm::cl::init("pai-v100-25gbe"), llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    ethernetOpt("ethernet-gbps", llvm::cl::desc("Ethernet line rates, Gb/s"),
                llvm::cl::init("10,25,100"), llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    pcieOpt("pcie-gbs", llvm::cl::desc("PCIe bandwidths, GB/s"),
            llvm::cl::init("10,50"), llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    flopsOpt("tflops", llvm::cl::desc("GPU peak FLOP/s, in TFLOP/s"),
             llvm::cl::init("8,16,32,64"), llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    hbmOpt("hbm-tbs", llvm::cl::desc("GPU memory bandwidths, TB/s"),
           llvm::cl::init("1,2,4"), llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    csvOpt("csv", llvm::cl::desc("Write the table as CSV to this file"),
           llvm::cl::init(""), llvm::cl::cat(category));
static llvm::cl::opt<double> inputBytesOpt(
    "input-bytes",
    llvm::cl::desc("Input bytes per step per replica for T_d (-1: the "
                   "graph's h2d copies)"),
    llvm::cl::init(-1), llvm::cl::cat(category));
static llvm::cl::opt<std::string> archGraphOpt(
    "arch-graph",
    llvm::cl::desc("Rewrite the graph for each point's architecture "
                   "(--perf-pai-architecture) so the critical path times its "
                   "weight traffic and input I/O: auto (when the point runs "
                   "no --pipeline), on, off"),
    llvm::cl::init("auto"), llvm::cl::cat(category));
static llvm::cl::opt<int>
    psOpt("ps",
          llvm::cl::desc("Parameter servers of ps-worker (0: one per worker)"),
          llvm::cl::init(0), llvm::cl::cat(category));
static llvm::cl::opt<int> gpusPerNodeOpt(
    "gpus-per-node",
    llvm::cl::desc("Workers per server for the architecture rewrite (0: 1 "
                   "for ps-worker, else as many as fit)"),
    llvm::cl::init(0), llvm::cl::cat(category));
static llvm::cl::opt<unsigned> jobsOpt("j",
                                       llvm::cl::desc("Threads (0: all cores)"),
                                       llvm::cl::init(0),
                                       llvm::cl::cat(category));

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

struct Point {
  double ethernetGbps, pcieGBs, tflops, hbmTBs;
  std::string arch;
  /// Parallelism passes run first ("" for none).
  std::string pipeline;
  // Results.
  bool ok = false;
  std::string error;
  double td = 0, tcCompute = 0, tcMemory = 0, tw = 0, total = 0,
         criticalPath = -1;
  /// The largest device peak in bytes, and whether it exceeds the GPU.
  double peakBytes = 0;
  bool outOfMemory = false;
};

llvm::Expected<std::vector<double>> parseList(llvm::StringRef name,
                                              llvm::StringRef text) {
  std::vector<double> values;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',', -1, false);
  for (llvm::StringRef p : parts) {
    double v;
    if (p.trim().getAsDouble(v) || !std::isfinite(v) || v <= 0)
      return llvm::createStringError("--" + name.str() +
                                     ": expected positive numbers, got '" +
                                     p.str() + "'");
    values.push_back(v);
  }
  if (values.empty())
    return llvm::createStringError("--" + name.str() + " is empty");
  return values;
}

double attrF64(DictionaryAttr dict, llvm::StringRef key) {
  if (auto a = dict.getAs<FloatAttr>(key))
    return a.getValueAsDouble();
  return -1;
}

/// The base system with one grid point's figures.
SystemSpec pointSystem(const SystemSpec &base, const Point &p) {
  SystemSpec s = base;
  GpuSpec &g = s.gpu;
  g.name = base.gpu.name + " (sweep)";
  for (double *flops : {&g.fp32Flops, &g.fp16Flops, &g.tensorTf32Flops,
                        &g.tensorF16Flops, &g.tensorBf16Flops})
    *flops = p.tflops * 1e12;
  g.memBandwidth = p.hbmTBs * 1e12;
  g.pcieBandwidth = p.pcieGBs * 1e9;
  s.hostPcie.bandwidth = p.pcieGBs * 1e9;
  s.interNode.bandwidth = p.ethernetGbps * 1e9 / 8;
  // Enough servers for one worker each (PS/Worker's placement).
  s.nodes = std::max<unsigned>(s.nodes, workersOpt);
  return s;
}

void runPoint(const std::string &source, const DialectRegistry &registry,
              const SystemSpec &base, Point &p) {
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  // An error names the op by its location; printing the whole graph after
  // it would bury the message.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, inputFile), llvm::SMLoc());
  // Diagnostics in the one error format, located in the input file; the
  // first failing point's are printed.
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagStream);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module) {
    p.error = diagnostics;
    return;
  }
  SystemSpec system = pointSystem(base, p);
  (void)forEachGraph(*module, [&](GraphOp graph) {
    graph.setTargetAttr(GpuAttr::get(&context, system.gpu));
    return success();
  });

  // The passes read the system from a file, like a user's system JSON.
  llvm::SmallString<128> path;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "perf-sweep-system", "json", fd, path)) {
    p.error =
        "perf-sweep: error: cannot create a temporary file: " + ec.message() +
        "\n";
    return;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << llvm::formatv("{0:2}", toJson(system));
  }
  // Passes that work per graph nest under perf.graph.
  PassManager pm(&context, ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  std::string pipelineError;
  llvm::raw_string_ostream pipelineStream(pipelineError);
  if (!p.pipeline.empty() &&
      failed(parsePassList(p.pipeline, pm, pipelineStream))) {
    p.error = "perf-sweep: error: --pipeline '" + p.pipeline +
              "': " + llvm::StringRef(pipelineError).trim().str() + "\n";
    llvm::sys::fs::remove(path);
    return;
  }
  bool rewrite =
      archGraphOpt == "on" || (archGraphOpt == "auto" && p.pipeline.empty());
  if (rewrite) {
    PaiArchitectureOptions archOptions;
    archOptions.arch = p.arch;
    // AllReduce-Local is one server's job: more workers than a server holds
    // count as a full server, as --perf-pai-breakdown's local GPUs do.
    archOptions.workers =
        p.arch == "allreduce-local"
            ? std::min<int64_t>(workersOpt, std::max(1u, system.gpusPerNode))
            : int64_t(workersOpt);
    archOptions.ps = psOpt;
    archOptions.gpusPerNode = gpusPerNodeOpt;
    archOptions.system = path.str().str();
    archOptions.inputBytes =
        inputBytesOpt > 0 ? static_cast<int64_t>(inputBytesOpt) : 0;
    pm.addPass(createPaiArchitecture(archOptions));
  }
  pm.addPass(createKernelCost());
  CommCostOptions comm;
  comm.system = path.str().str();
  pm.addPass(createCommCost(comm));
  pm.addPass(createCriticalPath());
  PaiBreakdownOptions pai;
  pai.arch = p.arch;
  pai.workers = workersOpt;
  pai.system = path.str().str();
  pai.output = "";
  pai.inputBytes = inputBytesOpt;
  pm.addPass(createPaiBreakdown(pai));
  LogicalResult result = pm.run(*module);
  llvm::sys::fs::remove(path);
  if (failed(result)) {
    p.error = diagnostics;
    return;
  }
  GraphOp graph;
  (void)forEachGraph(*module, [&](GraphOp g) {
    if (!graph)
      graph = g;
    return success();
  });
  auto breakdown =
      graph ? graph->getAttrOfType<DictionaryAttr>(kPaiAttr) : nullptr;
  if (!breakdown) {
    p.error =
        "perf-sweep: error: no perf.graph in the input (" + inputFile + ")\n";
    return;
  }
  p.td = attrF64(breakdown, "t_d_us");
  p.tcCompute = attrF64(breakdown, "t_c_compute_us");
  p.tcMemory = attrF64(breakdown, "t_c_memory_us");
  p.tw = attrF64(breakdown, "t_w_us");
  p.total = attrF64(breakdown, "total_us");
  p.criticalPath = attrF64(breakdown, "critical_path_us");
  MemoryAnalysis memory(graph);
  p.peakBytes = memory.largest().peak();
  p.outOfMemory = memory.outOfMemory();
  p.ok = true;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  perf::setVersionPrinter("perf-sweep");
  DialectRegistry registry;
  registerPerfDialects(registry);
  registerPerfPassesAndPipelines();
  registerPerfToolPasses();
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "perf-sweep: one model over a grid of hardware and parallelism "
      "settings\n\n"
      "  perf-sweep examples/gpt2_large_4gpu.mlir --workers=16 "
      "--ethernet-gbps=25,100\n"
      "  perf-sweep examples/gpt2_large_4gpu.mlir "
      "--pipeline='perf-data-parallel{devices=8}' --csv=sweep.csv\n");

  auto fail = [](const llvm::Twine &message) {
    return reportError("perf-sweep", llvm::createStringError(message));
  };
  auto buffer = readInputFile(inputFile);
  if (!buffer)
    return reportError("perf-sweep", buffer.takeError());
  llvm::Expected<SystemSpec> base = loadSystemSpec(systemOpt);
  if (!base)
    return fail(llvm::toString(base.takeError()));
  if (workersOpt < 1)
    return fail("--workers must be positive");
  for (auto [name, value] :
       {std::pair<const char *, int64_t>{"--workers", workersOpt},
        {"--ps", psOpt},
        {"--gpus-per-node", gpusPerNodeOpt}}) {
    if (value < 0)
      return fail(llvm::Twine(name) + " must not be negative");
    if (!withinLimit(value, kMaxDevices))
      return fail(limitExceeded(name, value, kMaxDevices));
  }
  if (!std::isfinite(inputBytesOpt) || inputBytesOpt > double(kMaxExtent.max))
    return fail("--input-bytes must be a finite number of at most " +
                llvm::Twine(kMaxExtent.max) + " (limit " + kMaxExtent.name +
                ")");
  if (archGraphOpt != "auto" && archGraphOpt != "on" && archGraphOpt != "off")
    return fail("--arch-graph: expected auto, on or off, got '" + archGraphOpt +
                "'");

  std::vector<std::vector<double>> axes;
  for (auto [name, text] :
       {std::pair<const char *, std::string>{"ethernet-gbps", ethernetOpt},
        {"pcie-gbs", pcieOpt},
        {"tflops", flopsOpt},
        {"hbm-tbs", hbmOpt}}) {
    auto values = parseList(name, text);
    if (!values)
      return fail(llvm::toString(values.takeError()));
    axes.push_back(*values);
  }
  llvm::SmallVector<llvm::StringRef> archs;
  llvm::StringRef(archsOpt).split(archs, ',', -1, false);

  llvm::SmallVector<llvm::StringRef> pipelines;
  llvm::StringRef(pipelineOpt).split(pipelines, ';', -1, false);
  if (pipelines.empty())
    pipelines.push_back("");

  // The grid is a product of the lists: bounded before it is built.
  double gridSize = double(pipelines.size()) * double(archs.size());
  for (const std::vector<double> &axis : axes)
    gridSize *= double(axis.size());
  if (gridSize > double(kMaxSweepPoints.max))
    return fail(limitExceeded("the grid's point count", int64_t(gridSize),
                              kMaxSweepPoints));
  std::vector<Point> points;
  for (llvm::StringRef pipeline : pipelines)
    for (llvm::StringRef arch : archs)
      for (double e : axes[0])
        for (double pc : axes[1])
          for (double f : axes[2])
            for (double h : axes[3]) {
              Point p;
              p.ethernetGbps = e;
              p.pcieGBs = pc;
              p.tflops = f;
              p.hbmTBs = h;
              p.arch = arch.trim().str();
              p.pipeline =
                  pipeline.trim() == "none" ? "" : pipeline.trim().str();
              points.push_back(p);
            }

  std::string source = (*buffer)->getBuffer().str();
  {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(jobsOpt));
    for (Point &p : points)
      pool.async([&source, &registry, &base, point = &p] {
        runPoint(source, registry, *base, *point);
      });
    pool.wait();
  }

  for (const Point &p : points)
    if (!p.ok) {
      llvm::errs() << p.error;
      if (!llvm::StringRef(p.error).ends_with("\n"))
        llvm::errs() << "\n";
      return 1;
    }

  // The pipeline column only when it varies.
  bool showPipeline = pipelines.size() > 1;
  llvm::outs() << llvm::format(
      "%-17s %8s %8s %7s %7s %11s %11s %11s %11s %11s %11s %9s %6s", "arch",
      "eth_gbps", "pcie_gbs", "tflops", "hbm_tbs", "T_d_us", "T_c_comp_us",
      "T_c_mem_us", "T_w_us", "T_total_us", "crit_path_us", "peak_gib",
      "memory");
  llvm::outs() << (showPipeline ? "  pipeline\n" : "\n");
  for (const Point &p : points) {
    llvm::outs() << llvm::format(
        "%-17s %8g %8g %7g %7g %11.1f %11.1f %11.1f %11.1f %11.1f %11.1f "
        "%9.2f %6s",
        p.arch.c_str(), p.ethernetGbps, p.pcieGBs, p.tflops, p.hbmTBs, p.td,
        p.tcCompute, p.tcMemory, p.tw, p.total, p.criticalPath,
        p.peakBytes / kGiB, p.outOfMemory ? "OOM" : "fits");
    if (showPipeline)
      llvm::outs() << "  " << (p.pipeline.empty() ? "none" : p.pipeline);
    llvm::outs() << "\n";
  }

  if (!csvOpt.empty()) {
    // Renamed into place once written: no half table after an interrupt.
    llvm::Error written = llvm::writeToOutput(csvOpt, [&](llvm::raw_ostream
                                                              &csv) {
      csv << "arch,ethernet_gbps,pcie_gbs,tflops,hbm_tbs,t_d_us,t_c_compute_us,"
             "t_c_memory_us,t_w_us,t_total_us,critical_path_us,peak_bytes,"
             "out_of_memory,pipeline\n";
      for (const Point &p : points)
        csv << llvm::formatv("{0},{1},{2},{3},{4},{5:F3},{6:F3},{7:F3},{8:F3},"
                             "{9:F3},{10:F3},{11:F0},{12},\"{13}\"\n",
                             p.arch, p.ethernetGbps, p.pcieGBs, p.tflops,
                             p.hbmTBs, p.td, p.tcCompute, p.tcMemory, p.tw,
                             p.total, p.criticalPath, p.peakBytes,
                             p.outOfMemory ? "true" : "false",
                             p.pipeline.empty() ? "none" : p.pipeline);
      return llvm::Error::success();
    });
    if (written)
      return fail("cannot write '" + csvOpt +
                  "': " + llvm::toString(std::move(written)));
  }
  return 0;
}
