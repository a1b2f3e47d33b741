// Before and after with the built-in host overheads (T1 8, T2 10, T3 5,
// T4 10 us): every op launching one small kernel costs the host
// 8 + 10 + 10 + 5 = 33 us and the step is host-bound. Four ops (three
// lookups and the cat) take 132 us; after fusion two ops take 66 us.
// RUN: perf-opt %s --estimate --perf-fuse-embeddings --estimate --perf-compare | FileCheck %s
// CHECK: perf estimate: @step
// CHECK: end-to-end time        132.000 us
// CHECK: perf estimate: @step
// CHECK: end-to-end time         66.000 us
// CHECK: perf compare: @step  predicted 66.000 us
// CHECK-NEXT: before transforms      132.000 us ->       66.000 us  (-50.0%, speedup 2.000x)  [perf-fuse-embeddings]

// The fused op is repriced; the transform alone needs no estimate first.
// RUN: perf-opt %s --perf-fuse-embeddings --estimate --perf-compare | FileCheck %s --check-prefix=NOBASE
// NOBASE: perf compare: @step  predicted 66.000 us
// NOBASE-NOT: before transforms
perf.graph @step attributes {target = #perf.gpu<"V100">} {
  %e0 = perf.op "aten::embedding_bag" : () -> tensor<4x4xf32> {
    perf.embedding_bag {rows = 1000, dim = 4, batch = 4}
  }
  %e1 = perf.op "aten::embedding_bag" : () -> tensor<4x4xf32> {
    perf.embedding_bag {rows = 1000, dim = 4, batch = 4}
  }
  %e2 = perf.op "aten::embedding_bag" : () -> tensor<4x4xf32> {
    perf.embedding_bag {rows = 1000, dim = 4, batch = 4}
  }
  %cat = perf.op "aten::cat"(%e0, %e1, %e2) : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x12xf32> {
    perf.concat {elements = 48}
  }
}
