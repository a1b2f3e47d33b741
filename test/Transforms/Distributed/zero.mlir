// RUN: perf-opt %s --perf-data-parallel=devices=4 --perf-zero=stage=1 | FileCheck %s --check-prefix=STAGE1
// RUN: perf-opt %s --perf-data-parallel=devices=4 --perf-zero=stage=3 | FileCheck %s --check-prefix=STAGE3
// RUN: perf-opt %s --perf-data-parallel=devices=4 --estimate=format=json | FileCheck %s --check-prefix=DDP
// RUN: perf-opt %s --perf-data-parallel=devices=4 --perf-zero=stage=1 --estimate=format=json | FileCheck %s --check-prefix=MEM1
// RUN: perf-opt %s --perf-data-parallel=devices=4 --perf-zero=stage=2 --estimate=format=json | FileCheck %s --check-prefix=MEM2
// RUN: perf-opt %s --perf-data-parallel=devices=4 --perf-zero=stage=3 --estimate=format=json | FileCheck %s --check-prefix=MEM3
// RUN: perf-opt %s --perf-data-parallel=devices=4 --perf-zero=stage=3 --estimate | FileCheck %s --check-prefix=REPORT
// RUN: not perf-opt %s --perf-zero=stage=1 2>&1 | FileCheck %s --check-prefix=NODP
// RUN: not perf-opt %s --perf-data-parallel=devices=4 --perf-zero=stage=4 2>&1 | FileCheck %s --check-prefix=BADSTAGE
// RUN: not perf-opt %s --perf-pipeline-parallel=devices=2 --perf-data-parallel=devices=2 --perf-zero=stage=2 2>&1 | FileCheck %s --check-prefix=PIPE

// Two fp32 1024 x 1024 linear layers (blocks 0 and 1) over 256 rows, Adam,
// four data-parallel replicas. Each weight and its gradient is 4 MiB
// (4194304 B), every activation 1 MiB; the two gradients make one 8 MiB DDP
// bucket (under 25 MiB).

// Stage 1: the bucket is reduce-scattered (same bytes), Adam updates
// 2097152 / 4 = 524288 elements, then the 8 MiB of weights are gathered on
// the compute stream.
// STAGE1: perf.graph @step attributes {perf.data_parallel = 4 : i64, perf.grad_bytes = 8388608 : i64, perf.zero = 1 : i64
// STAGE1: perf.op "zero::reduce_scatter"
// STAGE1-NEXT: perf.reduce_scatter {bytes = 8388608 : i64, group = array<i64: 0, 1, 2, 3>, stream = 1 : i64}
// STAGE1: perf.optimizer {algorithm = #perf.optimizer<adam>, dtype = f32, elements = 524288 : i64
// STAGE1: perf.op "zero::all_gather"
// STAGE1-NEXT: perf.all_gather {bytes = 8388608 : i64, group = array<i64: 0, 1, 2, 3>}
// STAGE1-NOT: all_reduce

// Stage 3: each block's 4 MiB of weights gathered before its forward GEMM
// and again before its backward GEMMs (which read them), its gradients
// reduce-scattered after them; no DDP bucket, no gather after Adam.
// STAGE3: %[[G0:.*]] = perf.op "zero::all_gather" {perf.layer = 0 : i64} : () -> tensor<1048576xf32>
// STAGE3-NEXT: perf.all_gather {bytes = 4194304 : i64, group = array<i64: 0, 1, 2, 3>, stream = 1 : i64}
// STAGE3: perf.op "linear1"(%[[G0]])
// STAGE3: %[[G1:.*]] = perf.op "zero::all_gather" {perf.layer = 1 : i64}
// STAGE3: perf.op "linear2"(%{{.*}}, %[[G1]])
// STAGE3: %[[B1:.*]] = perf.op "zero::all_gather.backward" {perf.layer = 1 : i64}
// STAGE3: perf.op "linear2.backward"(%{{.*}}, %{{.*}}, %[[B1]])
// STAGE3: perf.op "zero::reduce_scatter"
// STAGE3-NEXT: perf.reduce_scatter {bytes = 4194304 : i64
// STAGE3: perf.op "relu.backward"
// STAGE3: %[[B0:.*]] = perf.op "zero::all_gather.backward" {perf.layer = 0 : i64}
// STAGE3: perf.op "linear1.backward"(%{{.*}}, %[[B0]])
// STAGE3: perf.op "zero::reduce_scatter"
// STAGE3-NEXT: perf.reduce_scatter {bytes = 4194304 : i64
// STAGE3: perf.sync {stream = 1 : i64}
// STAGE3: elements = 524288 : i64
// STAGE3-NOT: all_gather
// STAGE3-NOT: all_reduce

// Memory per replica, tensors alive in launch order (MiB):
//   linear1 +x1 = 1; relu +r = 2, x1 freed: 1; linear2 +y = 2;
//   sum +s, y freed: 1; sum.backward +g = 2;
//   linear2.backward +dW2 +dr, g freed after; relu.backward +dx1, r and dr
//   freed after; linear1.backward +dW1 +dx0; the bucket reads dx0.
// With DDP alone: weights 8, gradients 8, Adam 16, buckets 8 (a copy of every
// gradient), activations: linear2.backward 2 + 4 + 1 = 7, linear1.backward
// dW2 4 + dx1 1 + dW1 4 + dx0 1 = 10. Peak 8 + 16 + 8 + 10 = 42 MiB, over
// the toy GPU's 32.
// DDP: "activation_peak_bytes": 10485760
// DDP-NEXT: "bucket_bytes": 8388608
// DDP: "optimizer_bytes": 16777216
// DDP-NEXT: "parameter_bytes": 8388608
// DDP-NEXT: "peak_bytes": 44040192
// DDP: "out_of_memory": true
// Stage 1: Adam 16 / 4 = 4; one 8 MiB reduce bucket: 8 + 4 + 8 + 10 = 30.
// MEM1: "activation_peak_bytes": 10485760
// MEM1-NEXT: "bucket_bytes": 8388608
// MEM1-NEXT: "device": 0
// MEM1-NEXT: "gradient_bytes": 8388608
// MEM1-NEXT: "optimizer_bytes": 4194304
// MEM1-NEXT: "parameter_bytes": 8388608
// MEM1-NEXT: "peak_bytes": 31457280
// MEM1: "out_of_memory": false
// Stage 2: each gradient 1 MiB: linear2.backward 2 + 1 + 1 = 4,
// linear1.backward 1 + 1 + 1 + 1 = 4. 8 + 4 + 8 + 4 = 24.
// MEM2: "activation_peak_bytes": 4194304
// MEM2-NEXT: "bucket_bytes": 8388608
// MEM2-NEXT: "device": 0
// MEM2-NEXT: "gradient_bytes": 2097152
// MEM2-NEXT: "optimizer_bytes": 4194304
// MEM2-NEXT: "parameter_bytes": 8388608
// MEM2-NEXT: "peak_bytes": 25165824
// Stage 3: weights 8 / 4 = 2; the largest bucket is a block's 4 MiB; a
// gathered block (4) is alive while its readers run: linear2 y 1 + r 1 +
// 4 = 6; linear2.backward r 1 + g 1 + 4 + dW2 1 + dr 1 = 8; linear1.backward
// dW2 1 + dx1 1 + 4 + dW1 1 + dx0 1 = 8. 2 + 4 + 4 + 8 = 18.
// MEM3: "activation_peak_bytes": 8388608
// MEM3-NEXT: "bucket_bytes": 4194304
// MEM3-NEXT: "device": 0
// MEM3-NEXT: "gradient_bytes": 2097152
// MEM3-NEXT: "optimizer_bytes": 4194304
// MEM3-NEXT: "parameter_bytes": 2097152
// MEM3-NEXT: "peak_bytes": 18874368
// REPORT: all_gather {{.*}} 4
// REPORT: reduce_scatter {{.*}} 2

// NODP: error: --perf-zero: graph @step has no data-parallel replicas; run --perf-data-parallel=devices=N (N >= 2) first
// BADSTAGE: error: --perf-zero: stage must be 1, 2 or 3, got 4
// PIPE: error: --perf-zero: stage 2 shards gradients, which pipeline parallelism accumulates over micro-batches
perf.graph @step attributes {phase = "training", target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000, mem_gib = 0.03125>} {
  %0 = perf.op "linear1" {perf.layer = 0 : i64, perf.params = 1048576 : i64} : () -> tensor<256x1024xf32> {
    perf.gemm {dtype = f32, m = 256, n = 1024, k = 1024}
  }
  %1 = perf.op "relu"(%0) {perf.layer = 0 : i64} : (tensor<256x1024xf32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "relu"}
  }
  %2 = perf.op "linear2"(%1) {perf.layer = 1 : i64, perf.params = 1048576 : i64} : (tensor<256x1024xf32>) -> tensor<256x1024xf32> {
    perf.gemm {dtype = f32, m = 256, n = 1024, k = 1024}
  }
  %3 = perf.op "sum"(%2) : (tensor<256x1024xf32>) -> tensor<f32> {
    perf.reduce {dtype = f32, rows = 1, cols = 262144}
  }
  %4 = perf.op "sum.backward"(%3) : (tensor<f32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "fill", pass = #perf.pass<bwd>}
  }
  %5:2 = perf.op "linear2.backward"(%4, %1) {perf.layer = 1 : i64, perf.params = 1048576 : i64, perf.grad_bytes = 4194304 : i64} : (tensor<256x1024xf32>, tensor<256x1024xf32>) -> (tensor<256x1024xf32>, tensor<1048576xf32>) {
    perf.gemm {dtype = f32, m = 256, n = 1024, k = 1024, pass = #perf.pass<dgrad>}
    perf.gemm {dtype = f32, m = 1024, n = 1024, k = 256, pass = #perf.pass<wgrad>}
  }
  %6 = perf.op "relu.backward"(%5#0, %1) {perf.layer = 0 : i64} : (tensor<256x1024xf32>, tensor<256x1024xf32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "relu_bwd", pass = #perf.pass<bwd>}
  }
  %7:2 = perf.op "linear1.backward"(%6) {perf.layer = 0 : i64, perf.params = 1048576 : i64, perf.grad_bytes = 4194304 : i64} : (tensor<256x1024xf32>) -> (tensor<256x1024xf32>, tensor<1048576xf32>) {
    perf.gemm {dtype = f32, m = 256, n = 1024, k = 1024, pass = #perf.pass<dgrad>}
    perf.gemm {dtype = f32, m = 1024, n = 1024, k = 256, pass = #perf.pass<wgrad>}
  }
  perf.op "optimizer::adam"(%5#1, %7#1) : (tensor<1048576xf32>, tensor<1048576xf32>) -> () {
    perf.optimizer {dtype = f32, elements = 2097152 : i64, algorithm = #perf.optimizer<adam>, pass = #perf.pass<update>}
  }
}
