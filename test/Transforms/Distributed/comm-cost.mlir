// RUN: perf-opt %s --perf-comm-cost=system=dgx-a100 | FileCheck %s
// RUN: perf-opt %s --perf-comm-cost | FileCheck %s --check-prefix=DEFAULT
// RUN: not perf-opt %s --perf-comm-cost=system=%S/Inputs/missing-system.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not perf-opt %s --perf-comm-cost=system=%S/Inputs/bad-system.json 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not perf-opt %s --perf-comm-cost=algorithm=butterfly 2>&1 | FileCheck %s --check-prefix=ALGO

// dgx-a100: NVLink3 300 GB/s x 0.7 = 210 GB/s per GPU, alpha = 2 us.
// all_reduce of 1e8 bytes over 4 GPUs, ring (cheaper than the tree's
// 8 us + 2 n/B = 960.4 us):
//   2 (p-1) alpha + 2 (p-1)/p n/B = 12 + 1.5e8 / 2.1e11 s = 12 + 714.2857 us
// CHECK: perf.all_reduce
// CHECK-SAME: perf.algorithm = "ring"
// CHECK-SAME: perf.cost_model = "alpha-beta"
// CHECK-SAME: perf.latency_us = 726.28571428571
//
// all_gather forced to ring by the op, 8 GPUs, 1e8 bytes:
//   (p-1) alpha + (p-1)/p n/B = 14 + 0.875e8 / 2.1e11 s = 14 + 416.6667 us
// CHECK: perf.all_gather
// CHECK-SAME: perf.latency_us = 430.66666666
//
// send of 4e6 bytes between two GPUs: alpha + n/B = 2 + 19.0476 us
// CHECK: perf.send
// CHECK-SAME: perf.latency_us = 21.047619047
//
// Without a system: one node of the target A100-SXM4-80GB, whose 300 GB/s
// NVLink gives the same figures as dgx-a100.
// DEFAULT: perf.all_reduce
// DEFAULT-SAME: perf.latency_us = 726.28571428571
//
// MISSING: error: {{.*}}missing-system.json
// BAD: bad-system.json:3: at 'nodez': unknown key 'nodez'
// ALGO: error: --perf-comm-cost: unknown algorithm 'butterfly'
perf.graph @step attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %g = perf.op "grad"() : () -> tensor<4xf32>
  perf.op "ddp::all_reduce"(%g) : (tensor<4xf32>) -> () {
    perf.all_reduce {bytes = 100000000, group = array<i64: 0, 1, 2, 3>, stream = 1}
  }
  perf.op "gather" : () -> () {
    perf.all_gather {bytes = 100000000, group = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>, algorithm = "ring"}
  }
  perf.op "pp::send" : () -> () {
    perf.send {bytes = 4000000, group = array<i64: 0, 1>}
  }
}
