// RUN: perf-opt %s --perf-tensor-parallel=devices=2 --perf-data-parallel="devices=4 bucket-mb=25" | FileCheck %s
// RUN: perf-opt %s --perf-tensor-parallel=devices=2 --perf-data-parallel="devices=4 bucket-mb=25" --perf-kernel-cost --perf-comm-cost="system=%S/Inputs/four-nodes-of-two.json algorithm=ring" | FileCheck %s --check-prefix=COST
// RUN: perf-opt %s --perf-data-parallel="devices=4 stride=3" | FileCheck %s --check-prefix=STRIDE

// 2-way tensor parallelism x 4-way data parallelism on 8 GPUs, two a node
// (dgx-a100 links: NVLink3 300 GB/s, 2 us; HDR 200 Gb/s = 25 GB/s, 5 us, 8
// NICs a node; 70%). Device 0 stands for every rank; its TP group is the
// node's pair {0, 1}, its DP group the device 0 of every pair {0, 2, 4, 6}.
//
// TP: the row-parallel GEMM's output, 1024 x 1024 f32 = 4194304 B, is
// all-reduced over {0, 1} on NVLink (210 GB/s achieved):
//   2 x 1 x 2 + 2 x 1/2 x 4194304 / 210e9 = 4 + 19.973 = 23.973 us
// DP: each TP rank holds half the weights, so the 8e6 B of gradients become
// 4e6 B, all-reduced over {0, 2, 4, 6}, one GPU on each of 4 nodes (ring,
// one NIC each, 17.5 GB/s achieved):
//   2 x 3 x 5 + 2 x 3/4 x 4e6 / 17.5e9 = 30 + 342.857 = 372.857 us
// CHECK-LABEL: perf.graph @block
// CHECK-SAME: perf.data_parallel = 4
// CHECK-SAME: perf.grad_bytes = 4000000
// CHECK-SAME: perf.tensor_parallel = 2
// CHECK: perf.op "tp::all_reduce"
// CHECK-NEXT: perf.all_reduce {bytes = 4194304 : i64, group = array<i64: 0, 1>}
// CHECK: perf.op "ddp::all_reduce"
// CHECK-NEXT: perf.all_reduce {bytes = 4000000 : i64, group = array<i64: 0, 2, 4, 6>, stream = 1 : i64}
// COST: perf.all_reduce {bytes = 4194304 : i64, group = array<i64: 0, 1>, perf.algorithm = "ring", perf.cost_model = "alpha-beta", perf.latency_us = 23.97{{[0-9]*}} : f64}
// COST: perf.all_reduce {bytes = 4000000 : i64, group = array<i64: 0, 2, 4, 6>, perf.algorithm = "ring", perf.cost_model = "alpha-beta", perf.latency_us = 372.857{{[0-9]*}} : f64, stream = 1 : i64}
// An explicit stride places the replicas that far apart.
// STRIDE: perf.all_reduce {bytes = 8000000 : i64, group = array<i64: 0, 3, 6, 9>, stream = 1 : i64}

perf.graph @block attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %h = perf.op "mlp_fwd" : () -> tensor<4xf32> {
    perf.gemm {m = 1024, n = 4096, k = 1024}
    perf.elementwise {elements = 4194304}
    perf.gemm {m = 1024, n = 1024, k = 4096}
  }
  perf.op "mlp_bwd"(%h) {perf.grad_bytes = 8000000} : (tensor<4xf32>) -> () {
    perf.gemm {m = 1024, n = 4096, k = 1024, pass = "dgrad"}
  }
}
