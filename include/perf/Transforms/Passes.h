//===- Passes.h - perf passes -----------------------------------*- C++ -*-===//

#ifndef PERF_TRANSFORMS_PASSES_H
#define PERF_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include <functional>
#include <string>

namespace perf {

#define GEN_PASS_DECL
#include "perf/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "perf/Transforms/Passes.h.inc"

/// Options of the default cost pipeline (`--estimate`): the options of its
/// passes, with the defaults Passes.td gives them. EstimateOptions.def
/// lists the ones the pipeline's textual form sets.
struct EstimateOptions {
  KernelCostOptions kernelCost;
  CommCostOptions commCost;
  HostOverheadOptions hostOverhead;
  CriticalPathOptions criticalPath;
  ReportOptions report;
};

/// Where the estimate pipeline hands its outputs over in process, in place
/// of the files its options name: the report (JSON) and the predicted
/// timeline (Chrome Trace Event JSON). Null: the options' files.
struct EstimateOutputs {
  std::string *report = nullptr;
  std::string *timeline = nullptr;
};

/// Sets the options the `estimate` pipeline's textual form names
/// (`models=roofline launch=cuda-graph`, EstimateOptions.def) in `options`,
/// leaving the others as they are. Errors name the option.
llvm::Error applyEstimateOptions(EstimateOptions &options,
                                 llvm::StringRef text);

/// Adds kernel cost, host overhead, critical path and report passes.
void buildEstimatePipeline(mlir::OpPassManager &pm,
                           const EstimateOptions &options,
                           EstimateOutputs outputs = {});

/// The report pass writing its JSON report into `json`, not a file.
std::unique_ptr<mlir::Pass> createReport(const ReportOptions &options,
                                         std::string &json);
/// The critical path writing its timeline into `timeline`, not a file.
std::unique_ptr<mlir::Pass>
createCriticalPath(const CriticalPathOptions &options, std::string &timeline);

/// Adds the textual pass list `pipeline` (MLIR's syntax: `a,b{opt=1},
/// perf.graph(c)`) to `pm`, nesting each top-level pass that works on one
/// perf.graph under `perf.graph(...)` when `pm` runs on something else.
/// MLIR parses textual pipelines with explicit nesting; this keeps
/// `perf-tensor-parallel{devices=2}` meaning what it means on perf-opt's
/// command line. Errors go to `errorStream`.
mlir::LogicalResult parsePassList(llvm::StringRef pipeline,
                                  mlir::OpPassManager &pm,
                                  llvm::raw_ostream &errorStream);

/// The names of the passes in `pm`, nested pipelines' included, in the
/// order they run; pass options are not names. MLIR keeps the pass
/// adaptors private, so this reads the pipeline as it prints.
std::vector<std::string> pipelinePassNames(mlir::OpPassManager &pm);

/// Checks the order of the layout passes in `pm` as it is built: they
/// compose as expert, tensor, pipeline and data parallelism, then ZeRO (the
/// order Megatron-LM builds its process groups in), each at most once. The
/// passes also refuse a graph an earlier run already laid out in a later
/// way. Errors go to `errorStream`.
mlir::LogicalResult checkLayoutOrder(mlir::OpPassManager &pm,
                                     llvm::raw_ostream &errorStream);

/// What runEstimate gives back: the JSON report (perf-opt
/// --estimate-format=json) and, when asked for, the predicted timeline
/// (Chrome Trace Event JSON).
struct EstimateResult {
  std::string report;
  std::string timeline;
};

/// Runs the textual pass pipeline `pipeline` (may be empty; passes by name,
/// registerPerfPasses() first) and then the estimate pipeline with `options`
/// on `module`, in process: `device` (a catalog name or a device JSON file;
/// empty: the graphs' own targets) becomes every graph's target first. The
/// report is JSON whatever options.format says; the timeline is written
/// only when `withTimeline`. The error holds every diagnostic, located.
llvm::Expected<EstimateResult> runEstimate(mlir::ModuleOp module,
                                           llvm::StringRef device,
                                           llvm::StringRef pipeline,
                                           EstimateOptions options,
                                           bool withTimeline);

/// Registers every pass and the `estimate` pipeline. `defaults` supplies
/// the pipeline's options when it is built (perf-opt's --estimate-* flags).
void registerPerfPassesAndPipelines(
    std::function<EstimateOptions()> defaults = {});

} // namespace perf

#endif // PERF_TRANSFORMS_PASSES_H
