// RUN: perf-opt %s --split-input-file --perf-comm-cost=system=%S/Inputs/two-dgx-a100.json -verify-diagnostics | FileCheck %s

// all_to_all as NCCL runs it: grouped point-to-point transfers, each rank's
// pieces to its own node's GPUs over NVLink and to the other node through
// the NICs at once; the slowest rank bounds it. Two DGX A100 nodes: a pair
// inside a node is a ring step of 12 channels x 20 GB/s (Simple: 8.4 + 3.4
// = 11.8 us at 240 GB/s); a pair across nodes one channel through one HDR
// NIC at 24 GB/s (8.4 + 14 = 22.4 us), each GPU with a NIC of its own.
//
// Even, 16 MiB over all 16 GPUs: 1 MiB a peer, 7 MiB to the node's others
// (7340032 / 240000 = 30.58 us) and 8 MiB across (8388608 / 24000 =
// 349.525 us) at once; latency the larger, 22.4: 371.925 us.
// CHECK-LABEL: perf.graph @even
// CHECK: perf.all_to_all
// CHECK-SAME: perf.latency_us = 371.925
// CHECK-SAME: perf.protocol = "Simple"
//
// Uneven across nodes, {0, 8}: 0 sends 1e6 B, 8 sends 3e6 B; rank 8's send
// (rank 0's receive) bounds it: 22.4 + 3e6 / 24000 = 147.4 us.
// CHECK: perf.all_to_all
// CHECK-SAME: perf.latency_us = 1.474000e+02
//
// Uneven inside a node, {0, 1}: 4e6 B one way, 1e6 B back: 11.8 + 4e6 /
// 240000 = 28.4667 us.
// CHECK: perf.all_to_all
// CHECK-SAME: perf.latency_us = 28.46666
perf.graph @even attributes {target = #perf.gpu<"A100-SXM4-80GB">} {
  perf.op "a2a" : () -> () {
    perf.all_to_all {bytes = 16777216, group = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15>}
  }
  perf.op "moe" : () -> () {
    perf.all_to_all {bytes = 3000000, group = array<i64: 0, 8>, split_bytes = array<i64: 0, 1000000, 3000000, 0>}
  }
  perf.op "moe2" : () -> () {
    perf.all_to_all {bytes = 4000000, group = array<i64: 0, 1>, split_bytes = array<i64: 0, 4000000, 1000000, 0>}
  }
}

// -----

perf.graph @short attributes {target = #perf.gpu<"A100-SXM4-80GB">} {
  perf.op "a2a" : () -> () {
    // expected-error @+1 {{'split_bytes' must have 4 entries (group size squared), not 3}}
    perf.all_to_all {bytes = 3000000, group = array<i64: 0, 8>, split_bytes = array<i64: 0, 1000000, 3000000>}
  }
}

// -----

perf.graph @mismatch attributes {target = #perf.gpu<"A100-SXM4-80GB">} {
  perf.op "a2a" : () -> () {
    // expected-error @+1 {{'bytes' must be the most a device sends in 'split_bytes' (3000000)}}
    perf.all_to_all {bytes = 1000000, group = array<i64: 0, 8>, split_bytes = array<i64: 0, 1000000, 3000000, 0>}
  }
}
