// RUN: perf-opt %s --perf-shard-embeddings="devices=2 strategy=size" 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: perf-opt %s --perf-shard-embeddings="devices=2 strategy=lookup" 2>&1 | FileCheck %s --check-prefix=LOOKUP
// RUN: not perf-opt %s --perf-shard-embeddings="devices=2 strategy=random" 2>&1 | FileCheck %s --check-prefix=BAD

// Two f32 tables of 1e6 x 128 (512 MB each, 1024 x 20 lookups = 10.49 MB
// read per step) and three of 1000 x 64 (0.256 MB, 1024 x 80 lookups =
// 20.97 MB read). Largest first onto the least loaded device:
//   size:   big, big, small, small, small -> dev 0: big + 2 small,
//           dev 1: big + small; bytes read 52.43 / 31.46 MB, max/mean 1.25
//   lookup: small x 3 first (81920 lookups each), then big x 2 ->
//           dev 0: 2 small, dev 1: small + 2 big; 41.94 MB each.
// SIZE: Embedding shards @dlrm (2 devices, strategy size)
// SIZE-NEXT: device tables table-MB lookups/step MB-read/step
// SIZE: 0 3 512.5 184320 52.43
// SIZE: 1 2 512.3 102400 31.46
// SIZE: imbalance (max / mean bytes read): 1.250
// LOOKUP: 0 2 0.5 163840 41.94
// LOOKUP: 1 3 1024.3 122880 41.94
// LOOKUP: imbalance (max / mean bytes read): 1.000

// Forward: one lookup op per device with its tables, then the all_to_all of
// the pooled outputs (the larger share: 2 small tables x 1024 x 64 x 4 B),
// whose result the original op now waits for.
// SIZE: perf.embedding_shards = {all_to_all = 3 : i64
// SIZE: %[[IDX:.*]] = perf.op "indices"
// SIZE: %[[D0:.*]] = perf.op "emb_small"(%[[IDX]]) {perf.shard = 0 : i64}
// SIZE-NEXT: perf.embedding_bag {batch = 1024 : i64, dim = 64 : i64, pooling = 80 : i64, rows = 1000 : i64, tables = 2 : i64}
// SIZE: %[[D1:.*]] = perf.op "emb_small"(%[[IDX]]) {device = 1 : i64, perf.shard = 1 : i64}
// SIZE-NEXT: perf.embedding_bag {batch = 1024 : i64, device = 1 : i64, dim = 64 : i64, pooling = 80 : i64, rows = 1000 : i64}
// SIZE: %[[A2A:.*]]:2 = perf.op "emb::all_to_all"(%[[D0]], %[[D1]])
// SIZE-NEXT: perf.all_to_all {bytes = 524288 : i64, group = array<i64: 0, 1>
// SIZE: %[[OUT:.*]] = perf.op "emb_small"(%[[IDX]], %[[A2A]]#0, %[[A2A]]#1)
// Backward: gradients come back first, then each device updates its tables.
// SIZE: %[[G:.*]] = perf.op "emb::all_to_all"(%[[OUT]]) :
// SIZE: perf.op "emb_small_bwd"(%[[G]]) {perf.shard = 0 : i64}
// SIZE-NEXT: perf.embedding_bag {{.*}}pass = #perf.pass<bwd>{{.*}}tables = 2 : i64
// BAD: error: --perf-shard-embeddings: devices must be positive and strategy size, lookup or greedy
perf.graph @dlrm attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %i = perf.op "indices" : () -> tensor<1024x20xi64>
  %b = perf.op "emb_big"(%i) : (tensor<1024x20xi64>) -> tensor<1024x256xf32> {
    perf.embedding_bag {tables = 2, rows = 1000000, dim = 128, batch = 1024, pooling = 20}
  }
  %s = perf.op "emb_small"(%i) : (tensor<1024x20xi64>) -> tensor<1024x192xf32> {
    perf.embedding_bag {tables = 3, rows = 1000, dim = 64, batch = 1024, pooling = 80}
  }
  perf.op "emb_small_bwd"(%s) : (tensor<1024x192xf32>) -> () {
    perf.embedding_bag {tables = 3, rows = 1000, dim = 64, batch = 1024, pooling = 80, pass = #perf.pass<bwd>}
  }
}
