// End-to-end estimates of a GPT2-Large-like step on 4 A100-SXM4-80GB GPUs
// (examples/gpt2_large_4gpu.mlir, one 1024-token sequence per micro-batch)
// with data, tensor and pipeline parallelism. The estimate pipeline prices
// the collectives with NCCL's model on one NVSwitch node of the target GPU:
// its 300 GB/s NVLink is 240 GB/s in NCCL's figures, a ring of 12 channels
// at 20 GB/s (unittests/Comm/NcclTunerTest.cpp).
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
// NCCL's ring Simple over 4 GPUs: 8.4 + 6 x 3.4 = 28.8 us, 240 x 4/6 = 160
// GB/s of algorithm bandwidth:
//   first: 28.8 + 128657920 / 160000 = 28.8 + 804.112 = 832.912 us
//   others: 28.8 + 26214400 / 160000 = 28.8 + 163.84 = 192.64 us
// (LL128 25.4 us at 147.2 GB/s: 874.04 + 25.4 and 178.09 + 25.4)
// DP: "ddp::all_reduce"{{.*}}perf.bucket = 0
// DP-NEXT: perf.all_reduce {bytes = 128657920 : i64, group = array<i64: 0, 1, 2, 3>, perf.algorithm = "ring", perf.cost_model = "nccl"
// DP-SAME: perf.latency_us = 832.911999
// DP: "ddp::all_reduce"{{.*}}perf.bucket = 1
// DP-NEXT: perf.all_reduce {bytes = 26214400 : i64
// DP-SAME: perf.latency_us = 1.926400e+02
// DP: "ddp::all_reduce"{{.*}}perf.bucket = 54
// DP-NOT: "ddp::all_reduce"
// DP: perf.sync {{{.*}}stream = 1 : i64}
// DP-NEXT: perf.op "optimizer.step"

// Tensor parallelism: after each row-parallel GEMM (attention projection, fc2) the
// 1024 x 1280 fp16 activations (2621440 B) are all-reduced, NCCL's ring
// LL128: 14 + 6 x 1.9 = 25.4 us, min(240 x .92, 12 x 20) x 4/6 = 147.2 GB/s:
//   25.4 + 2621440 / 147200 = 25.4 + 17.809 = 43.209 us
// (Simple 28.8 + 16.384 = 45.184, LL 10.2 + 44.84).
// 2 per layer forward, and in backward the input gradients of the qkv and
// fc1 layers plus the vocabulary-parallel LM head.
// TP: perf.tensor_parallel = 4 : i64, perf.tp_all_reduces = array<i64: 72, 73>
// TP: perf.op "l0.qkv"
// TP-NEXT: perf.gemm {dtype = f16, k = 1280 : i64, m = 1024 : i64, n = 960 : i64
// TP: perf.op "l0.proj"
// TP-NEXT: perf.gemm {dtype = f16, k = 320 : i64, m = 1024 : i64, n = 1280 : i64
// TP: "tp::all_reduce"
// TP-NEXT: perf.all_reduce {bytes = 2621440 : i64
// TP-SAME: perf.latency_us = 43.208695652

// Pipeline parallelism: 4 stages, 8 micro-batches; each boundary carries the 1024 x 1280 fp16
// residual stream, an NCCL point-to-point transfer (one ring step, Simple):
//   8.4 + 3.4 + 2621440 / 240000 = 11.8 + 10.923 = 22.723 us.
// 3 boundaries x 2 directions x 8 micro-batches = 48 sends.
// PP: perf.pipeline_parallel = {chunks = 1 : i64, microbatches = 8 : i64, schedule = "1f1b", sends = 48 : i64, stages = 4 : i64, stride = 1 : i64}
// PP: "pp::send"
// PP-NEXT: perf.send {bytes = 2621440 : i64, group = array<i64: 0, 1>
// PP-SAME: perf.latency_us = 22.722666666
