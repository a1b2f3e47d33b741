// RUN: perf-opt --estimate=format=json %s | FileCheck %s
// RUN: perf-opt "--perf-shard-embeddings=devices=2 strategy=size" --estimate=format=json %s | FileCheck %s --check-prefix=SHARD
// RUN: sed -e 's/"aten::embedding_bag" :/"aten::embedding_bag" {perf.params = 32000 : i64} :/' -e 's/"aten::linear"(%%e) :/"aten::linear"(%%e) {perf.params = 512 : i64} :/' %s \
// RUN:   | perf-opt --estimate=format=json | FileCheck %s
// RUN: sed -e 's/"aten::embedding_bag" :/"aten::embedding_bag" {perf.params = 32000 : i64} :/' -e 's/"aten::linear"(%%e) :/"aten::linear"(%%e) {perf.params = 512 : i64} :/' %s \
// RUN:   | perf-opt "--perf-shard-embeddings=devices=2 strategy=size" --estimate=format=json | FileCheck %s --check-prefix=SHARD

// Embedding tables are weights: two tables of 1000 x 16 f32 rows, 128000 B,
// held by the device of the forward lookup. Without perf.params (a trace, a
// hand-written graph) they come from the lookup, beside the 16 x 32 linear
// weight its 2048 B gradient stands for; with perf.params (the second pair
// of runs: 32000 elements on the lookup, 512 on the linear) from the
// declarations. Either way 128000 + 2048 = 130048 B.
// Activations (launch order): the lookup's 4096 B and the linear's 8192 B,
// then the backward's 2048 B gradient and 4096 B input gradient while both
// are alive: 18432 B. Peak 130048 + 18432 = 148480 B.
// CHECK: "activation_peak_bytes": 18432
// CHECK: "parameter_bytes": 130048
// CHECK-NEXT: "peak_bytes": 148480

// Sharded over two devices (one table each), each device holds its 64000 B
// table; device 0 also the linear's 2048 B (the lookup op, emptied, keeps
// none of the tables it declared). Device 1's lookups write its table's 64
// bags of 16 f32, 4096 B, forward and backward, one at a time.
// SHARD: "activation_peak_bytes": 18432
// SHARD-NEXT: "bucket_bytes": 0
// SHARD-NEXT: "device": 0
// SHARD: "parameter_bytes": 66048
// SHARD-NEXT: "peak_bytes": 84480
// SHARD: "activation_peak_bytes": 4096
// SHARD-NEXT: "bucket_bytes": 0
// SHARD-NEXT: "device": 1
// SHARD: "parameter_bytes": 64000
// SHARD-NEXT: "peak_bytes": 68096
perf.graph @step attributes {phase = "training", target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000, mem_gib = 1.0>} {
  %e = perf.op "aten::embedding_bag" : () -> tensor<64x16xf32> {
    perf.embedding_bag {tables = 2, rows = 1000, dim = 16, batch = 64, pooling = 8}
  }
  %l = perf.op "aten::linear"(%e) : (tensor<64x16xf32>) -> tensor<64x32xf32> {
    perf.gemm {m = 64, n = 32, k = 16}
  }
  %g:2 = perf.op "aten::linear.backward"(%l, %e) : (tensor<64x32xf32>, tensor<64x16xf32>) -> (tensor<64x16xf32>, tensor<512xf32>) {
    perf.gemm {m = 64, n = 16, k = 32, pass = #perf.pass<dgrad>}
    perf.gemm {m = 16, n = 32, k = 64, pass = #perf.pass<wgrad>}
  }
  %b = perf.op "aten::embedding_bag.backward"(%g#0) : (tensor<64x16xf32>) -> tensor<2x64x16xf32> {
    perf.embedding_bag {tables = 2, rows = 1000, dim = 16, batch = 64, pooling = 8, pass = #perf.pass<bwd>}
  }
}
