// RUN: perf-opt %s -split-input-file --perf-fuse-embeddings | FileCheck %s

// Three lookups of one shape become one batched kernel over 2 + 1 + 1 = 4
// tables: rows and pooling are table-weighted means,
// (2 x 1000 + 3000 + 2000) / 4 = 1750 rows, (2 x 2 + 4 + 8) / 4 = 4 lookups.
// The measured latency of a member does not carry over, nor where it ran.
// CHECK-LABEL: perf.graph @fuse
// CHECK-SAME: perf.transforms = ["perf-fuse-embeddings"]
// CHECK: %[[IDX:.*]] = perf.op "aten::to"
// CHECK-NEXT: perf.memcpy
// CHECK: %[[F:.*]]:3 = perf.op "batched_embedding_bag"(%[[IDX]]) {perf.fused_ops = 3 : i64} : (tensor<256xi64>) -> (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>) {
// CHECK-NEXT: perf.embedding_bag {batch = 64 : i64, dim = 16 : i64, pooling = 4 : i64, rows = 1750 : i64, tables = 4 : i64}
// CHECK-NEXT: }
// CHECK-NOT: aten::embedding_bag
// CHECK: perf.op "aten::cat"(%[[F]]#0, %[[F]]#1, %[[F]]#2)
perf.graph @fuse attributes {target = #perf.gpu<"V100">} {
  %idx = perf.op "aten::to" : () -> tensor<256xi64> {
    perf.memcpy {bytes = 2048, kind = #perf.copy<h2d>}
  }
  %e0 = perf.op "aten::embedding_bag"(%idx) : (tensor<256xi64>) -> tensor<64x16xf32> {
    perf.embedding_bag {tables = 2, rows = 1000, dim = 16, batch = 64, pooling = 2, perf.latency_us = 5.0, perf.cost_model = "measured", perf.measured_start_us = 7.0}
  }
  %e1 = perf.op "aten::embedding_bag"(%idx) : (tensor<256xi64>) -> tensor<64x16xf32> {
    perf.embedding_bag {rows = 3000, dim = 16, batch = 64, pooling = 4}
  }
  %e2 = perf.op "aten::embedding_bag"(%idx) : (tensor<256xi64>) -> tensor<64x16xf32> {
    perf.embedding_bag {rows = 2000, dim = 16, batch = 64, pooling = 8}
  }
  %cat = perf.op "aten::cat"(%e0, %e1, %e2) : (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<64x48xf32> {
    perf.concat {elements = 3072}
  }
}

// -----

// Lookups of different widths, or forward and backward, are not batched
// together: only the two dim-16 forward lookups fuse.
// CHECK-LABEL: perf.graph @keys
// CHECK: perf.op "aten::embedding_bag"
// CHECK-NEXT: perf.embedding_bag {batch = 64 : i64, dim = 32 : i64
// CHECK: perf.op "EmbeddingBagBackward0"
// CHECK: perf.op "batched_embedding_bag"
// CHECK-NEXT: perf.embedding_bag {batch = 64 : i64, dim = 16 : i64, rows = 100 : i64, tables = 2 : i64}
perf.graph @keys attributes {target = #perf.gpu<"V100">} {
  %a = perf.op "aten::embedding_bag" : () -> tensor<64x16xf32> {
    perf.embedding_bag {rows = 100, dim = 16, batch = 64}
  }
  %b = perf.op "aten::embedding_bag" : () -> tensor<64x32xf32> {
    perf.embedding_bag {rows = 100, dim = 32, batch = 64}
  }
  %g = perf.op "EmbeddingBagBackward0" : () -> tensor<100x16xf32> {
    perf.embedding_bag {rows = 100, dim = 16, batch = 64, pass = #perf.pass<bwd>}
  }
  %c = perf.op "aten::embedding_bag" : () -> tensor<64x16xf32> {
    perf.embedding_bag {rows = 100, dim = 16, batch = 64}
  }
}

// -----

// %a is used before %b and %c are looked up, so the batched op, which sits
// where the last member was, cannot produce it: %a stays, %b and %c fuse.
// CHECK-LABEL: perf.graph @uses
// CHECK: %[[A:.*]] = perf.op "aten::embedding_bag"
// CHECK: perf.op "aten::relu"(%[[A]])
// CHECK: perf.op "batched_embedding_bag"
// CHECK-SAME: perf.fused_ops = 2
perf.graph @uses attributes {target = #perf.gpu<"V100">} {
  %a = perf.op "aten::embedding_bag" : () -> tensor<64x16xf32> {
    perf.embedding_bag {rows = 100, dim = 16, batch = 64}
  }
  %r = perf.op "aten::relu"(%a) : (tensor<64x16xf32>) -> tensor<64x16xf32> {
    perf.elementwise {elements = 1024, fn = "relu"}
  }
  %b = perf.op "aten::embedding_bag" : () -> tensor<64x16xf32> {
    perf.embedding_bag {rows = 100, dim = 16, batch = 64}
  }
  %c = perf.op "aten::embedding_bag" : () -> tensor<64x16xf32> {
    perf.embedding_bag {rows = 100, dim = 16, batch = 64}
  }
}
