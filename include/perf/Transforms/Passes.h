//===- Passes.h - perf passes -----------------------------------*- C++ -*-===//

#ifndef PERF_TRANSFORMS_PASSES_H
#define PERF_TRANSFORMS_PASSES_H

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
  std::string retarget = "ratio";
  /// Factor on every host overhead.
  double hostScale = 1.0;
  /// Where the report pass also writes the graphs' distinct kernels (JSON);
  /// empty: nowhere.
  std::string kernelList;
  /// Where the critical path also writes the schedule as a Chrome trace;
  /// empty: nowhere.
  std::string timeline;
};

/// Adds kernel cost, host overhead, critical path and report passes.
void buildEstimatePipeline(mlir::OpPassManager &pm,
                           const EstimateOptions &options);

/// Registers every pass and the `estimate` pipeline. `defaults` supplies
/// the pipeline's options when it is built (perf-opt's --estimate-* flags).
void registerPerfPassesAndPipelines(
    std::function<EstimateOptions()> defaults = {});

} // namespace perf

#endif // PERF_TRANSFORMS_PASSES_H
