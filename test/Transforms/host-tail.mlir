// RUN: perf-opt %s --perf-critical-path="iterations=3" --perf-report -o /dev/null | FileCheck %s

// An iteration imported from a trace ends with the host time after its last
// op (perf.host_tail_us, the overhead table's iteration tail), paid by the
// host thread at the end of every step. Here: T1 10, the GEMM's launch
// (no perf.launch_us: 0) and T3 0, so the host is done with the op at 10;
// the GEMM runs [10, 12); the tail takes the host to 40. Three steps back
// to back: each starts where the host stopped, 40 us apart.
// CHECK: end-to-end time         40.000 us
// CHECK-NEXT: steady-state step       40.000 us  (step 3 of 3 back to back)
// CHECK: host time               40.000 us  (host-bound)
perf.graph @step attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>, perf.host_tail_us = 30.0 : f64} {
  perf.op "a" {perf.overhead_us = array<f64: 10.0, 0.0, 0.0, 5.0>} : () -> () {
    perf.gemm {m = 100, n = 100, k = 100, perf.latency_us = 2.0}
  }
}
