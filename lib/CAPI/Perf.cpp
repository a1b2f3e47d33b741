//===- Perf.cpp - C API of the perf cost model ----------------------------===//

#include "perf-c/Perf.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassRegistry.h"
#include "perf/CostModel/KernelCostModel.h"
#include "perf/Dialect/PerfDialect.h"
#include "perf/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace perf;

static char *copyString(llvm::StringRef s) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

static int fail(char **error, llvm::StringRef message) {
  if (error)
    *error = copyString(message);
  return 1;
}

void perfFreeString(char *string) { std::free(string); }

/// The KernelDesc of a C kernel, zero fields meaning the KernelDesc default
/// where one exists (batch, filter size, strides, groups, ...).
static llvm::Expected<KernelDesc> toKernelDesc(const PerfKernel *k) {
  if (static_cast<int>(k->kind) < 0 ||
      static_cast<int>(k->kind) >= kNumKernelKinds)
    return llvm::createStringError("unknown kernel kind");
  KernelDesc d;
  d.kind = static_cast<KernelKind>(k->kind);
  if (k->dtype) {
    std::optional<DType> type = parseDType(k->dtype);
    if (!type)
      return llvm::createStringError(std::string("unknown dtype '") + k->dtype +
                                     "'");
    d.dtype = *type;
  }
  d.tensorCores = k->tensorCores != 0;
  auto orDefault = [](int64_t v, int64_t dflt) { return v ? v : dflt; };
  d.batch = orDefault(k->batch, 1);
  d.m = k->m;
  d.n = k->n;
  d.k = k->k;
  d.c = k->c;
  d.h = k->h;
  d.w = k->w;
  d.outChannels = k->outChannels;
  d.r = orDefault(k->r, 1);
  d.s = orDefault(k->s, 1);
  d.strideH = orDefault(k->strideH, 1);
  d.strideW = orDefault(k->strideW, 1);
  d.padH = k->padH;
  d.padW = k->padW;
  d.groups = orDefault(k->groups, 1);
  d.numElements = k->numElements;
  d.numInputs = orDefault(k->numInputs, 1);
  d.rows = k->rows;
  d.cols = k->cols;
  d.numTables = orDefault(k->numTables, 1);
  d.tableRows = k->tableRows;
  d.dim = k->dim;
  d.pooling = orDefault(k->pooling, 1);
  d.flops = k->flops;
  d.bytes = k->bytes;
  return d;
}

struct PerfCostModel {
  KernelCostStack stack;
};

static llvm::Expected<KernelCostStack>
buildStack(const char *models, const char *database, const char *modelDir) {
  CostModelOptions options;
  if (database)
    options.databasePath = database;
  if (modelDir)
    options.mlModelDir = modelDir;
  return createKernelCostStack(models ? models : "roofline", options);
}

PerfCostModel *perfCostModelCreate(const char *models, const char *database,
                                   const char *modelDir, char **error) {
  llvm::Expected<KernelCostStack> stack =
      buildStack(models, database, modelDir);
  if (!stack) {
    fail(error, llvm::toString(stack.takeError()));
    return nullptr;
  }
  return new PerfCostModel{std::move(*stack)};
}

void perfCostModelDestroy(PerfCostModel *model) { delete model; }

int perfCostModelLatencyUs(PerfCostModel *model, const PerfKernel *k,
                           const char *gpuName, double *latencyUs,
                           char **pricedBy, char **error) {
  if (!model || !k || !gpuName || !latencyUs)
    return fail(error, "perfCostModelLatencyUs: model, kernel, gpu and "
                       "latency are required");
  const GpuSpec *gpu = lookupGpu(gpuName);
  if (!gpu)
    return fail(error, std::string("unknown GPU '") + gpuName + "'");
  llvm::Expected<KernelDesc> d = toKernelDesc(k);
  if (!d)
    return fail(error, llvm::toString(d.takeError()));
  KernelCost cost = model->stack.estimate(*d, *gpu);
  *latencyUs = cost.latencyUs;
  if (pricedBy)
    *pricedBy = copyString(cost.model);
  return 0;
}

int perfKernelLatencyUs(const PerfKernel *k, const char *gpuName,
                        const char *models, double *latencyUs, char **error) {
  if (!k || !gpuName || !latencyUs)
    return fail(error, "perfKernelLatencyUs: kernel, gpu and latency are "
                       "required");
  llvm::Expected<KernelCostStack> stack = buildStack(models, nullptr, nullptr);
  if (!stack)
    return fail(error, llvm::toString(stack.takeError()));
  PerfCostModel model{std::move(*stack)};
  return perfCostModelLatencyUs(&model, k, gpuName, latencyUs, nullptr, error);
}

int perfEstimateModule(const char *mlirText, const char *gpu,
                       const char *pipeline, char **reportJson, char **error) {
  return perfEstimateModuleWithOptions(mlirText, gpu, pipeline, nullptr,
                                       reportJson, error);
}

int perfEstimateModuleWithOptions(const char *mlirText, const char *gpu,
                                  const char *pipeline,
                                  const PerfEstimateOptions *settings,
                                  char **reportJson, char **error) {
  if (!mlirText || !reportJson)
    return fail(error, "perfEstimateModule: IR text and report are required");
  // Pipelines given by name need the passes registered, once per process.
  static const bool registered = [] {
    registerPerfPasses();
    return true;
  }();
  (void)registered;
  mlir::MLIRContext context;
  context.loadDialect<PerfDialect>();
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  {
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      diagStream << d.getLocation() << ": " << d.str() << "\n";
      return mlir::success();
    });
    module = mlir::parseSourceString<mlir::ModuleOp>(
        mlirText, mlir::ParserConfig(&context));
  }
  if (!module)
    return fail(error, diagnostics);
  EstimateOptions options;
  if (settings) {
    if (settings->models)
      options.kernelCost.models = settings->models;
    if (settings->database)
      options.kernelCost.database = settings->database;
    if (settings->modelDir)
      options.kernelCost.mlModelDir = settings->modelDir;
    options.criticalPath.iterations = std::max(1u, settings->iterations);
    if (settings->estimateOptions)
      if (llvm::Error e =
              applyEstimateOptions(options, settings->estimateOptions))
        return fail(error, llvm::toString(std::move(e)));
  }
  llvm::Expected<EstimateResult> result =
      runEstimate(*module, gpu ? gpu : "", pipeline ? pipeline : "", options,
                  /*withTimeline=*/false);
  if (!result)
    return fail(error, llvm::toString(result.takeError()));
  *reportJson = copyString(result->report);
  return 0;
}
