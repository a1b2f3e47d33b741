// RUN: perf-opt %s --perf-kernel-cost="models=roofline compute-efficiency=1.0 memory-efficiency=1.0" --perf-host-overhead=table=%S/Inputs/overheads.json --perf-critical-path=iterations=3 | FileCheck %s
// RUN: perf-opt %s --estimate="iterations=3 overheads=%S/Inputs/overheads.json" | FileCheck %s --check-prefix=REPORT
// RUN: perf-opt %s --estimate="iterations=3 overheads=%S/Inputs/overheads.json format=json" | FileCheck %s --check-prefix=JSON
// RUN: not perf-opt %s --estimate=iterations=0 2>&1 | FileCheck %s --check-prefix=ZERO

// A device-bound training loop without a sync: the host runs ahead and the
// next step's kernel queues behind this one's. Toy GPU at 1 TFLOP/s: the
// 1000^3 GEMM takes 2000 us; T1..T5 = 1..5 us, 1 us kernel gap.
//   step 1: host 0+T1+T2 = 3; GEMM at 3+T4/2 = 5..2005; host 3+4+T3 = 10
//   step 2: host 10+3 = 13; GEMM at max(2005+1, 13+2) = 2006..4006
//   step 3: GEMM 4007..6007
// One step alone takes 2005 us; back to back, 2001 (the GEMM and the gap).

// CHECK: perf.estimate = {
// CHECK-SAME: e2e_us = 2.005000e+03
// CHECK-SAME: iterations = 3 : i64
// CHECK-SAME: steady_state_us = 2.001000e+03
// The per-op times are the first step's.
// CHECK: perf.gemm
// CHECK-SAME: perf.end_us = 2.005000e+03

// --estimate prices at the default 0.7 compute efficiency: 2857.143 us, so
// one step takes 5 + 2857.143 and a step back to back 2857.143 + 1.
// REPORT: end-to-end time       2862.143 us
// REPORT-NEXT: steady-state step     2858.143 us  (step 3 of 3 back to back)

// JSON: "iterations": 3,
// JSON: "steady_state_us": 2858.14

// ZERO: error: --perf-critical-path: iterations must be at least 1
perf.graph @loop attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>, phase = "training"} {
  perf.op "step" : () -> () {
    perf.gemm {m = 1000, n = 1000, k = 1000}
  }
}
