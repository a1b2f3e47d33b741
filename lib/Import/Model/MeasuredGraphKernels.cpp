//===- MeasuredGraphKernels.cpp - Kernels timed inside a traced step -----===//
//
// The kernels of a perf graph that carry a measured latency (what the Kineto
// and execution-trace importers attach: perf.cost_model = "measured" and
// perf.latency_us, on the GPU of the graph's perf.measured_on), as rows
// perf-train learns from.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "perf/Dialect/InputDiagnostics.h"
#include "perf/Dialect/PerfDialect.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Import/ModelConfigImport.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace perf;

llvm::Expected<StepKernelMeasurements>
perf::readMeasuredGraphKernels(llvm::StringRef path) {
  DialectRegistry registry;
  registry.insert<PerfDialect>();
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  CollectedErrors errors(&ctx);
  auto buffer = readInputFile(path);
  if (!buffer)
    return buffer.takeError();
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &ctx);
  if (!module)
    return fileError(path, errors.text().empty() ? "not a perf module"
                                                 : errors.text());
  StepKernelMeasurements measured;
  bool anyGraph = false;
  for (GraphOp graph : module->getOps<GraphOp>()) {
    // The GPU the trace ran on (perf.measured_on); a graph already moved
    // to another GPU keeps it there too.
    auto gpu = graph->getAttrOfType<GpuAttr>(kMeasuredOnAttr);
    if (!gpu)
      gpu = graph.getGpuTarget();
    if (!gpu)
      return fileError(path, "graph @" + graph.getSymName() +
                                 " names no GPU (perf.measured_on or "
                                 "perf.gpu): its kernels' times cannot be "
                                 "learned from");
    if (anyGraph && gpu.getSpec().name != measured.device.name)
      return fileError(path, "its graphs ran on different GPUs (" +
                                 measured.device.name + ", " +
                                 gpu.getSpec().name + "): one file per GPU");
    anyGraph = true;
    measured.device = gpu.getSpec();
    graph.walk([&](FrameworkOp op) {
      for (WorkAttr kernel : op.getWorkList()) {
        if (!kernel.isKernel())
          continue;
        // A trace import marks the kernels it timed "measured"; a retargeted
        // graph keeps the time measured on the source in its own attribute.
        auto us = kernel.getAs<FloatAttr>(kMeasuredLatencyAttr);
        auto model = kernel.getAs<StringAttr>(kCostModelAttr);
        if (!us && model && model.getValue() == "measured")
          us = kernel.getAs<FloatAttr>(kLatencyAttr);
        if (!us || us.getValueAsDouble() <= 0)
          continue;
        KernelMeasurement row;
        row.kernel = kernel.getKernelDesc();
        // A generic kernel is only its FLOPs and bytes: nothing a model
        // learns a kind's behaviour from.
        if (row.kernel.kind == KernelKind::Generic)
          continue;
        row.device = measured.device.name;
        row.op = op.getOpName().str();
        row.latencyUs = us.getValueAsDouble();
        row.file = path.str();
        row.source = "trace";
        // Work has no location of its own: errors name its perf.op's line.
        if (auto line = dyn_cast<FileLineColLoc>(op.getLoc()))
          row.line = line.getLine();
        measured.rows.push_back(std::move(row));
      }
    });
  }
  if (!anyGraph)
    return fileError(path, "holds no perf.graph");
  return measured;
}
