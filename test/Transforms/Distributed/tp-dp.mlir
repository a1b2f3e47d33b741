// RUN: perf-opt %s --perf-tensor-parallel=devices=2 --perf-data-parallel="devices=4 bucket-mb=25" | FileCheck %s
// RUN: perf-opt %s --perf-tensor-parallel=devices=2 --perf-data-parallel="devices=4 bucket-mb=25" --perf-kernel-cost --perf-comm-cost="system=%S/Inputs/four-nodes-of-two.json algorithm=ring" | FileCheck %s --check-prefix=COST
// RUN: perf-opt %s --perf-data-parallel="devices=4 stride=3" | FileCheck %s --check-prefix=STRIDE

// 2-way tensor parallelism x 4-way data parallelism on 8 GPUs, two a node
// (dgx-a100 links: NVLink3 300 GB/s; HDR 200 Gb/s = 25 GB/s, 8 NICs a node,
// reached over 24 GB/s of PCIe gen4 in NCCL's figures). Device 0 stands for
// every rank; its TP group is the node's pair {0, 1}, its DP group the
// device 0 of every pair {0, 2, 4, 6}. NCCL's ring, forced:
//
// TP: the row-parallel GEMM's output, 1024 x 1024 f32 = 4194304 B, is
// all-reduced over {0, 1} on NVLink (ring of 12 channels x 20 GB/s, 2 steps):
//   Simple 8.4 + 2 x 3.4 + 4194304 / 240000 = 15.2 + 17.476 = 32.676 us
//   (LL128 17.8 + 18.996, LL 7.8 + 47.826)
// DP: each TP rank holds half the weights, so the 8e6 B of gradients become
// 4e6 B, all-reduced over {0, 2, 4, 6}, one GPU on each of 4 nodes. The GPU
// reaches 8 x 1/2 = 4 of its node's NICs: 4 channels at speedArrayInter's
// 24, bus 96 GB/s x 4/6; every one of the 6 steps crosses the network, at
// the tree's NET hop (one GPU a node):
//   LL128: min(96 x .92, 4 x 20) = 80 x 4/6 = 53.333 GB/s, 14 + 6 x 8.5 =
//     65 us: 65 + 4e6 / 53333.3 = 140 us
//   Simple: 64 GB/s, (8.4 + 6 x 14) x 1.4 (ring plateau) = 129.36 us:
//     129.36 + 62.5 = 191.86 us; LL: 13.6 GB/s, 36.6 + 294.1 us
// CHECK-LABEL: perf.graph @block
// CHECK-SAME: perf.data_parallel = 4
// CHECK-SAME: perf.grad_bytes = 4000000
// CHECK-SAME: perf.tensor_parallel = 2
// CHECK: perf.op "tp::all_reduce"
// CHECK-NEXT: perf.all_reduce {bytes = 4194304 : i64, group = array<i64: 0, 1>}
// CHECK: perf.op "ddp::all_reduce"
// CHECK-NEXT: perf.all_reduce {bytes = 4000000 : i64, group = array<i64: 0, 2, 4, 6>, stream = 1 : i64}
// COST: perf.all_reduce {bytes = 4194304 : i64, group = array<i64: 0, 1>, perf.algorithm = "ring", perf.cost_model = "nccl", perf.latency_us = 32.676{{[0-9]*}} : f64, perf.protocol = "Simple"}
// COST: perf.all_reduce {bytes = 4000000 : i64, group = array<i64: 0, 2, 4, 6>, perf.algorithm = "ring", perf.cost_model = "nccl", perf.latency_us = 1.400000e+02 : f64, perf.protocol = "LL128", stream = 1 : i64}
// An explicit stride places the replicas that far apart.
// STRIDE: perf.all_reduce {bytes = 8000000 : i64, group = array<i64: 0, 3, 6, 9>, stream = 1 : i64}

perf.graph @block attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %h = perf.op "mlp_fwd" {perf.autograd_pair = 0 : i64} : () -> tensor<4xf32> {
    perf.gemm {m = 1024, n = 4096, k = 1024}
    perf.elementwise {elements = 4194304}
    perf.gemm {m = 1024, n = 1024, k = 4096}
  }
  perf.op "mlp_bwd"(%h) {perf.autograd_pair = 0 : i64, perf.grad_bytes = 8000000} : (tensor<4xf32>) -> () {
    perf.gemm {m = 1024, n = 4096, k = 1024, pass = #perf.pass<dgrad>}
  }
}
