// End-to-end estimates of a GPT2-Large-like step on 4 A100-SXM4-80GB GPUs
// (examples/gpt2_large_4gpu.mlir, one 1024-token sequence per micro-batch)
// with data, tensor and pipeline parallelism. The estimate pipeline prices
// the collectives on one NVLink node of the target GPU (300 GB/s x 0.7 =
// 210 GB/s per GPU, alpha 2 us).
//
// RUN: perf-opt %perf_src/examples/gpt2_large_4gpu.mlir --perf-data-parallel="devices=4 bucket-mb=25" --estimate -o %t.dp.mlir | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=DP < %t.dp.mlir
// RUN: perf-opt %perf_src/examples/gpt2_large_4gpu.mlir --perf-tensor-parallel=devices=4 --estimate -o %t.tp.mlir | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=TP < %t.tp.mlir
// RUN: perf-opt %perf_src/examples/gpt2_large_4gpu.mlir --perf-pipeline-parallel="devices=4 microbatches=8 schedule=1f1b" --estimate -o %t.pp.mlir | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=PP < %t.pp.mlir

// REPORT: perf estimate: @gpt2_large (training) on A100-SXM4-80GB
// REPORT-NEXT: end-to-end time {{[0-9]+\.[0-9]+}} us

// Data parallelism: buckets of 25 MiB = 26214400 B in backward order. The LM head's
// 1280 x 50257 fp16 gradient (128657920 B) fills the first alone; a layer
// has 1280 x (3840 + 1280 + 5120 + 5120) x 2 = 39321600 B = 1.5 buckets, so
// 36 layers close exactly 54 more buckets of 26214400 B: 55 all_reduces.
// Ring over 4 GPUs: 2 (p-1) alpha + 2 (p-1)/p n / B
//   first: 12 + 1.5 x 128657920 / 2.1e11 s = 12 + 918.985 = 930.985 us
//   others: 12 + 1.5 x 26214400 / 2.1e11 s = 12 + 187.246 = 199.246 us
// DP: "ddp::all_reduce"{{.*}}perf.bucket = 0
// DP-NEXT: perf.all_reduce {bytes = 128657920 : i64, group = array<i64: 0, 1, 2, 3>, perf.algorithm = "ring", perf.cost_model = "alpha-beta"
// DP-SAME: perf.latency_us = 930.98514285714
// DP: "ddp::all_reduce"{{.*}}perf.bucket = 1
// DP-NEXT: perf.all_reduce {bytes = 26214400 : i64
// DP-SAME: perf.latency_us = 199.24571428571
// DP: "ddp::all_reduce"{{.*}}perf.bucket = 54
// DP-NOT: "ddp::all_reduce"
// DP: perf.sync {{{.*}}stream = 1 : i64}
// DP-NEXT: perf.op "optimizer.step"

// Tensor parallelism: after each row-parallel GEMM (attention projection, fc2) the
// 1024 x 1280 fp16 activations (2621440 B) are all-reduced:
//   12 + 1.5 x 2621440 / 2.1e11 s = 12 + 18.725 = 30.725 us.
// 2 per layer forward, and in backward the input gradients of the qkv and
// fc1 layers plus the vocabulary-parallel LM head.
// TP: perf.tensor_parallel = 4 : i64, perf.tp_all_reduces = array<i64: 72, 73>
// TP: perf.op "l0.qkv"
// TP-NEXT: perf.gemm {dtype = f16, k = 1280 : i64, m = 1024 : i64, n = 960 : i64
// TP: perf.op "l0.proj"
// TP-NEXT: perf.gemm {dtype = f16, k = 320 : i64, m = 1024 : i64, n = 1280 : i64
// TP: "tp::all_reduce"
// TP-NEXT: perf.all_reduce {bytes = 2621440 : i64
// TP-SAME: perf.latency_us = 30.724571428571

// Pipeline parallelism: 4 stages, 8 micro-batches; each boundary carries the 1024 x 1280 fp16
// residual stream: alpha + n / B = 2 + 2621440 / 2.1e11 s = 14.483 us.
// 3 boundaries x 2 directions x 8 micro-batches = 48 sends.
// PP: perf.pipeline_parallel = {microbatches = 8 : i64, schedule = "1f1b", sends = 48 : i64, stages = 4 : i64}
// PP: "pp::send"
// PP-NEXT: perf.send {bytes = 2621440 : i64, group = array<i64: 0, 1>
// PP-SAME: perf.latency_us = 14.483047619
