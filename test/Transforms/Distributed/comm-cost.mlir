// RUN: perf-opt %s --perf-comm-cost=system=dgx-a100 | FileCheck %s
// RUN: perf-opt %s --perf-comm-cost | FileCheck %s --check-prefix=DEFAULT
// RUN: not perf-opt %s --perf-comm-cost=system=%S/Inputs/missing-system.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not perf-opt %s --perf-comm-cost=system=%S/Inputs/bad-system.json 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not perf-opt %s --perf-comm-cost=algorithm=butterfly 2>&1 | FileCheck %s --check-prefix=ALGO
// RUN: not perf-opt %s --perf-comm-cost=protocol=LL64 2>&1 | FileCheck %s --check-prefix=PROTO
// RUN: not perf-opt %s --perf-comm-cost=system=%S/Inputs/negative-latency-system.json 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: perf-opt %s --perf-comm-cost="system=dgx-a100 protocol=LL128" | FileCheck %s --check-prefix=LL128

// dgx-a100 in NCCL's figures: NVLink3 300 GB/s is 240 GB/s (20 of every
// 25 GB/s link, src/graph/topo.h), a ring of 12 channels at 20 GB/s.
// all_reduce of 1e8 bytes over 4 GPUs, 6 steps, NCCL's choice ring Simple:
//   8.4 + 6 x 3.4 = 28.8 us, 240 x 4/6 = 160 GB/s: 28.8 + 1e8 / 160000
//   = 653.8 us (ring LL128 25.4 + 679.35, tree Simple 32.4 + 1132.2)
// CHECK: perf.all_reduce
// CHECK-SAME: perf.algorithm = "ring"
// CHECK-SAME: perf.cost_model = "nccl"
// CHECK-SAME: perf.latency_us = 6.538000e+02
// CHECK-SAME: perf.protocol = "Simple"
//
// all_gather forced to ring by the op, 8 GPUs, 1e8 bytes, 7 steps:
//   8.4 + 7 x 3.4 = 32.2 us, 240 x 8/7 = 274.286 GB/s: 32.2 + 364.5833
//   = 396.7833 us
// CHECK: perf.all_gather
// CHECK-SAME: perf.latency_us = 396.78333
//
// send of 4e6 bytes between two GPUs, one ring step, Simple:
//   8.4 + 3.4 + 4e6 / 240000 = 28.4667 us
// CHECK: perf.send
// CHECK-SAME: perf.latency_us = 28.466666
//
// Without a system: one node of the target A100-SXM4-80GB behind an
// NVSwitch, whose 300 GB/s NVLink gives the same figures as dgx-a100.
// DEFAULT: perf.all_reduce
// DEFAULT-SAME: perf.latency_us = 6.538000e+02
//
// protocol=LL128 (NCCL_PROTO=LL128): ring, min(240 x .92, 12 x 20) =
// 220.8 x 4/6 = 147.2 GB/s, 14 + 6 x 1.9 = 25.4 us: 25.4 + 679.3478 =
// 704.7478 us. The send stays a point-to-point transfer.
// LL128: perf.all_reduce
// LL128-SAME: perf.latency_us = 704.7478
// LL128-SAME: perf.protocol = "LL128"
// LL128: perf.send
// LL128-SAME: perf.latency_us = 28.466666
//
// MISSING: error: {{.*}}missing-system.json
// BAD: bad-system.json:3: at 'nodez': unknown key 'nodez'
// ALGO: error: --perf-comm-cost: unknown algorithm 'butterfly'
// PROTO: error: --perf-comm-cost: unknown protocol 'LL64' (auto, LL, LL128, Simple)
// NEGATIVE: negative-latency-system.json:4: at 'intra_node.latency_us': latency must be a non-negative number (system 'broken')
perf.graph @step attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %g = perf.op "grad"() : () -> tensor<4xf32>
  perf.op "ddp::all_reduce"(%g) : (tensor<4xf32>) -> () {
    perf.all_reduce {bytes = 100000000, group = array<i64: 0, 1, 2, 3>, stream = 1}
  }
  perf.op "gather" : () -> () {
    perf.all_gather {bytes = 100000000, group = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>, algorithm = #perf.nccl<ring>}
  }
  perf.op "pp::send" : () -> () {
    perf.send {bytes = 4000000, group = array<i64: 0, 1>}
  }
}
