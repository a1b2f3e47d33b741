//===- Passes.td - perf transform and analysis passes ------*- tablegen -*-===//

#ifndef PERF_TRANSFORMS_PASSES_TD
#define PERF_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SetTarget : Pass<"perf-set-target", "::mlir::ModuleOp"> {
  let summary = "Sets the target GPU of every perf.graph";
  let description = [{
    Replaces the `target` of every graph with a catalog GPU (`device=H100`)
    or one read from a device JSON file (`device-file=gpu.json`). perf-opt's
    `--perf-device` and `--perf-device-file` run this pass first.
  }];
  let options = [
    Option<"device", "device", "std::string", "\"\"",
           "Catalog GPU name (see docs/devices.md)">,
    Option<"deviceFile", "device-file", "std::string", "\"\"",
           "Device JSON file">,
  ];
}

def KernelCost : Pass<"perf-kernel-cost", "::mlir::ModuleOp"> {
  let summary = "Prices every kernel with the chosen latency models";
  let description = [{
    Writes `perf.latency_us` and `perf.cost_model` on every kernel. Models
    are tried in the order given by `models` (or its alias `model`); the
    first that prices a kernel wins. The roofline is
    max(FLOPs / (peak * compute-efficiency), bytes / (bandwidth * memory-efficiency)).
  }];
  let options = [
    Option<"models", "models", "std::string", "\"roofline\"",
           "Comma-separated model order, e.g. db,ml,tile,heuristic,roofline">,
    Option<"model", "model", "std::string", "\"\"",
           "Alias of `models`">,
    Option<"computeEfficiency", "compute-efficiency", "double", "0.7",
           "Achievable fraction of peak FLOP/s">,
    Option<"memoryEfficiency", "memory-efficiency", "double", "0.8",
           "Achievable fraction of peak memory bandwidth">,
    Option<"database", "db", "std::string", "\"\"",
           "Performance database (SQLite) for the db model">,
    Option<"mlModelDir", "ml-dir", "std::string", "\"\"",
           "Directory of trained models for the ml model">,
  ];
}

def HostOverhead : Pass<"perf-host-overhead", "::mlir::ModuleOp"> {
  let summary = "Attaches the T1-T5 host overheads to every op and launch";
  let description = [{
    Writes `perf.overhead_us = array<f64: T1, T2, T3, T5>` on every perf.op
    and `perf.launch_us` (T4) on every kernel, from a JSON table
    (docs/host-overheads.md) or built-in defaults.
  }];
  let options = [
    Option<"table", "table", "std::string", "\"\"",
           "Overhead table (JSON); built-in defaults when empty">,
  ];
}

def CriticalPath : Pass<"perf-critical-path", "::mlir::ModuleOp"> {
  let summary = "Computes start/end times and the end-to-end step time";
  let description = [{
    Walks each graph once (Algorithm 1 of Lin et al., generalized to a host
    thread per device, in-order streams, cross-stream data dependencies,
    syncs and collectives) and records `perf.start_us`/`perf.end_us` on every
    op and kernel and `perf.estimate` on the graph.
  }];
  let options = [
    Option<"kernelGap", "kernel-gap-us", "double", "1.0",
           "Gap between back-to-back kernels on one stream">,
  ];
}

def Report : Pass<"perf-report", "::mlir::ModuleOp"> {
  let summary = "Prints the estimate of every graph";
  let options = [
    Option<"format", "format", "std::string", "\"text\"",
           "text or json">,
    Option<"output", "output", "std::string", "\"-\"",
           "Where to write the report ('-' is stdout)">,
  ];
}

#endif // PERF_TRANSFORMS_PASSES_TD
