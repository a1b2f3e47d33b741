// RUN: perf-opt %s --perf-recompute | FileCheck %s
// RUN: perf-opt %s --estimate=format=json | FileCheck %s --check-prefix=STORED
// RUN: perf-opt %s --perf-recompute --estimate=format=json | FileCheck %s --check-prefix=FULL
// RUN: not perf-opt %s --perf-recompute=granularity=some 2>&1 | FileCheck %s --check-prefix=BADGRAN
// RUN: not perf-opt %S/Distributed/Inputs/dp-inference.mlir --perf-recompute 2>&1 | FileCheck %s --check-prefix=INFER
// RUN: not perf-opt %S/Distributed/zero.mlir --perf-data-parallel=devices=2 --perf-recompute 2>&1 | FileCheck %s --check-prefix=PARALLEL

// Two blocks of an MLP over 256 rows, fp32: up (256 x 4096, 4 MiB), act
// (4 MiB), down (256 x 1024, 1 MiB, the block's output and the next
// block's input); the backward ops read what autograd saves.

// Full recomputation: block 1's three forward ops run again right before
// its first backward op, which reads the recomputed act; up1.backward still
// reads block 0's stored output (the checkpoint). Block 0 the same before
// down0.backward.
// CHECK: perf.graph @step attributes {perf.recompute = "full"
// CHECK: %[[LOSSGRAD:.*]] = perf.op "loss.backward"
// CHECK-NEXT: perf.elementwise
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: %[[UP1:.*]] = perf.op "up1"(%[[OUT0:[0-9]+]]) {perf.layer = 1 : i64, perf.recomputed}
// CHECK: %[[ACT1:.*]] = perf.op "act1"(%[[UP1]]) {perf.layer = 1 : i64, perf.recomputed}
// CHECK: perf.op "down1"(%[[ACT1]]) {perf.layer = 1 : i64, perf.recomputed}
// CHECK: perf.op "down1.backward"(%[[LOSSGRAD]], %[[ACT1]])
// CHECK: perf.op "act1.backward"(%{{.*}}, %[[UP1]])
// CHECK: perf.op "up1.backward"(%{{.*}}, %[[OUT0]])
// CHECK: %[[UP0:.*]] = perf.op "up0" {perf.layer = 0 : i64, perf.recomputed}
// CHECK: %[[ACT0:.*]] = perf.op "act0"(%[[UP0]]) {perf.layer = 0 : i64, perf.recomputed}
// CHECK: perf.op "down0.backward"(%{{.*}}, %[[ACT0]])
// CHECK: perf.op "act0.backward"(%{{.*}}, %[[UP0]])

// Live tensors in launch order (MiB). Stored: the forward keeps up and act
// of both blocks (8 + 1 + 8 + 1 = 18); loss.backward + 1 (down1 freed);
// down1.backward + 4 = 22, the peak (then the loss gradient and act1 go).
// STORED: "activation_peak_bytes": 23068672
// Recomputed: each forward tensor dies in the forward pass (act0 4 + down0
// 1 at most... block 1 peaks at act1 + up1 + down0 = 9), leaving block 0's
// output (1); loss.backward + 1 = 2; up1' + act1' = 10 (down1', read by no
// one, goes as it came); down1.backward + 4 = 14, the peak; block 0's
// backward pass peaks at 13.
// FULL: "activation_peak_bytes": 14680064

// BADGRAN: error: --perf-recompute: granularity must be full or selective, got 'some'
// INFER: error: --perf-recompute: graph @inference is not a training step (phase = "inference")
// PARALLEL: error: --perf-recompute: graph @step is already parallel; recompute the single-device step, then apply the parallelism passes
perf.graph @step attributes {phase = "training", target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000, mem_gib = 1>} {
  %0 = perf.op "up0" {perf.layer = 0 : i64} : () -> tensor<256x4096xf32> {
    perf.elementwise {dtype = f32, elements = 1048576 : i64, fn = "up"}
  }
  %1 = perf.op "act0"(%0) {perf.layer = 0 : i64} : (tensor<256x4096xf32>) -> tensor<256x4096xf32> {
    perf.elementwise {dtype = f32, elements = 1048576 : i64, fn = "act"}
  }
  %2 = perf.op "down0"(%1) {perf.layer = 0 : i64} : (tensor<256x4096xf32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "down"}
  }
  %3 = perf.op "up1"(%2) {perf.layer = 1 : i64} : (tensor<256x1024xf32>) -> tensor<256x4096xf32> {
    perf.elementwise {dtype = f32, elements = 1048576 : i64, fn = "up"}
  }
  %4 = perf.op "act1"(%3) {perf.layer = 1 : i64} : (tensor<256x4096xf32>) -> tensor<256x4096xf32> {
    perf.elementwise {dtype = f32, elements = 1048576 : i64, fn = "act"}
  }
  %5 = perf.op "down1"(%4) {perf.layer = 1 : i64} : (tensor<256x4096xf32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "down"}
  }
  %6 = perf.op "loss"(%5) : (tensor<256x1024xf32>) -> tensor<f32> {
    perf.reduce {dtype = f32, rows = 1, cols = 262144}
  }
  %7 = perf.op "loss.backward"(%6) : (tensor<f32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "fill", pass = #perf.pass<bwd>}
  }
  %8 = perf.op "down1.backward"(%7, %4) {perf.layer = 1 : i64} : (tensor<256x1024xf32>, tensor<256x4096xf32>) -> tensor<256x4096xf32> {
    perf.elementwise {dtype = f32, elements = 1048576 : i64, fn = "down_bwd", pass = #perf.pass<bwd>}
  }
  %9 = perf.op "act1.backward"(%8, %3) {perf.layer = 1 : i64} : (tensor<256x4096xf32>, tensor<256x4096xf32>) -> tensor<256x4096xf32> {
    perf.elementwise {dtype = f32, elements = 1048576 : i64, fn = "act_bwd", pass = #perf.pass<bwd>}
  }
  %10 = perf.op "up1.backward"(%9, %2) {perf.layer = 1 : i64} : (tensor<256x4096xf32>, tensor<256x1024xf32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "up_bwd", pass = #perf.pass<bwd>}
  }
  %11 = perf.op "down0.backward"(%10, %1) {perf.layer = 0 : i64} : (tensor<256x1024xf32>, tensor<256x4096xf32>) -> tensor<256x4096xf32> {
    perf.elementwise {dtype = f32, elements = 1048576 : i64, fn = "down_bwd", pass = #perf.pass<bwd>}
  }
  %12 = perf.op "act0.backward"(%11, %0) {perf.layer = 0 : i64} : (tensor<256x4096xf32>, tensor<256x4096xf32>) -> tensor<256x4096xf32> {
    perf.elementwise {dtype = f32, elements = 1048576 : i64, fn = "act_bwd", pass = #perf.pass<bwd>}
  }
  %13 = perf.op "up0.backward"(%12) {perf.layer = 0 : i64} : (tensor<256x4096xf32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "up_bwd", pass = #perf.pass<bwd>}
  }
}
