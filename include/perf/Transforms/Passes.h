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

/// Options of the default cost pipeline (`--estimate`).
struct EstimateOptions {
  std::string models = "roofline";
  std::string overheads;
  std::string format = "text";
  std::string output = "-";
  double computeEfficiency = 0.7;
  double memoryEfficiency = 0.8;
  std::string database;
  std::string mlModelDir;
  /// System for --perf-comm-cost (preset or JSON file); empty: one node of
  /// the target GPU.
  std::string system;
  /// Write start/end times on every op and kernel, not only the estimate.
  bool annotate = true;
  /// Back-to-back steps for the steady-state step time (1: one step).
  unsigned iterations = 1;
  /// How kernels measured on another GPU than the target move to it.
  std::string retarget = "shrunk";
  /// Factor on every host overhead.
  double hostScale = 1.0;
  /// Where the report pass also writes the graphs' distinct kernels (JSON);
  /// empty: nowhere.
  std::string kernelList;
  /// Where the critical path also writes the schedule as a Chrome trace;
  /// empty: nowhere.
  std::string timeline;
  /// Also write the launches of every graph here (perf.launch_list/1).
  std::string launchList;
};

/// Adds kernel cost, host overhead, critical path and report passes.
void buildEstimatePipeline(mlir::OpPassManager &pm,
                           const EstimateOptions &options);

/// Adds the textual pass list `pipeline` (MLIR's syntax: `a,b{opt=1},
/// perf.graph(c)`) to `pm`, nesting each top-level pass that works on one
/// perf.graph under `perf.graph(...)` when `pm` runs on something else.
/// MLIR parses textual pipelines with explicit nesting; this keeps
/// `perf-tensor-parallel{devices=2}` meaning what it means on perf-opt's
/// command line. Errors go to `errorStream`.
mlir::LogicalResult parsePassList(llvm::StringRef pipeline,
                                  mlir::OpPassManager &pm,
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
