// RUN: not perf-opt %s --estimate 2>&1 | FileCheck %s

// A trace of a GPU the catalog does not know (perf.trace_device, no
// target): the measured kernel needs no figures, the unmeasured one does.
// CHECK: error: graph @step ran on 'NVIDIA GeForce RTX 2080 Ti' (the trace's deviceProperties), which the catalog does not know: its 1 kernels without a measurement need a GPU's figures; give --perf-device or --perf-device-file, or import the trace with --trace-device=<device JSON>
perf.graph @step attributes {perf.trace_device = {name = "NVIDIA GeForce RTX 2080 Ti", sms = 68 : i64}} {
  perf.op "aten::mm" : () -> () {
    perf.gemm {m = 64, n = 64, k = 64, perf.latency_us = 12.5, perf.cost_model = "measured"}
    perf.gemm {m = 64, n = 64, k = 64}
  }
}
