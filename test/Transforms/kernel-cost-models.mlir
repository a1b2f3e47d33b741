// Model selection through --perf-kernel-cost: the first model of `models`
// that prices a kernel wins, and each kernel records which one did.

// RUN: perf-opt --perf-kernel-cost="models=heuristic,tile,roofline" %s | FileCheck %s --check-prefix=STACK
// RUN: perf-opt --perf-kernel-cost="models=roofline" %s | FileCheck %s --check-prefix=ROOF
// RUN: not perf-opt --perf-kernel-cost="models=tile,magic" %s 2>&1 | FileCheck %s --check-prefix=BAD

// A database with the T4 slice: the linear row below is measured
// (975.541 us); the other kernels miss and fall through.
// RUN: rm -rf %t && mkdir -p %t
// RUN: perf-train --neusight %S/../CostModel/Inputs/neusight --write-db %t/perf.sqlite
// RUN: perf-opt --perf-kernel-cost="models=db,heuristic,roofline db=%t/perf.sqlite" %s | FileCheck %s --check-prefix=DB

perf.graph @step attributes {target = #perf.gpu<"T4">} {
  %x = perf.op "aten::randn" : () -> tensor<969x602xf32>
  %y = perf.op "aten::linear"(%x) : (tensor<969x602xf32>) -> tensor<969x2932xf32> {
    perf.gemm {m = 969, n = 2932, k = 602, trans_b, kernel_name = "volta_sgemm_128x128_tn"}
  }
  %z = perf.op "aten::add"(%y, %y) : (tensor<969x2932xf32>, tensor<969x2932xf32>) -> tensor<969x2932xf32> {
    perf.elementwise {elements = 2841108, inputs = 2, fn = "add"}
  }
  %w = perf.op "aten::custom"(%z) : (tensor<969x2932xf32>) -> tensor<969x2932xf32> {
    perf.kernel {flops = 1.0e9, bytes = 1.0e6}
  }
}

// STACK: perf.gemm {{.*}}perf.cost_model = "tile"
// STACK: perf.elementwise {{.*}}perf.cost_model = "heuristic"
// STACK: perf.kernel {{.*}}perf.cost_model = "roofline"

// ROOF-COUNT-3: perf.cost_model = "roofline"

// BAD: unknown kernel cost model 'magic'

// The misses are kept on the graph for the report.
// DB: perf.graph @step attributes {perf.db_misses = [{device = "T4", dtype = "f32", kind = "elementwise", signature = "n=2841108 in=2 op=add"}, {device = "T4", dtype = "f32", kind = "generic", signature = "flops=1000000000 bytes=1000000"}]
// DB: perf.gemm {{.*}}perf.cost_model = "db", perf.latency_us = 975.54
// DB: perf.elementwise {{.*}}perf.cost_model = "heuristic"
// DB: perf.kernel {{.*}}perf.cost_model = "roofline"

// --estimate takes the same stack: the pipeline's db= and ml-dir= feed the
// db, ml and tile models. The flags these options once were still work,
// with a warning naming the pipeline's form.
// RUN: perf-opt --estimate="models=db,heuristic,roofline db=%t/perf.sqlite" %s | FileCheck %s --check-prefix=EST-DB
// RUN: perf-opt --estimate --estimate-models=db,heuristic,roofline --estimate-db=%t/perf.sqlite %s 2> %t.warnings | FileCheck %s --check-prefix=EST-DB
// RUN: FileCheck %s --check-prefix=DEPRECATED < %t.warnings
// DEPRECATED: perf-opt: warning: --estimate-models is deprecated; give it to the pipeline: --estimate="models=..." (docs/estimate.md)
// DEPRECATED-NEXT: perf-opt: warning: --estimate-db is deprecated; give it to the pipeline: --estimate="db=..." (docs/estimate.md)
// EST-DB: priced by: db=1 heuristic=1 roofline=1
// EST-DB-NEXT: not in the perf database: 2 kernel shapes (measure them with perf-bench --from)
// EST-DB-NEXT: elementwise n=2841108 in=2 op=add
// EST-DB-NEXT: generic flops=1000000000 bytes=1000000
// RUN: perf-opt --estimate="models=db,roofline db=%t/perf.sqlite format=json" %s | FileCheck %s --check-prefix=EST-JSON
// EST-JSON: "db_misses": [
// EST-JSON-NEXT: {
// EST-JSON-NEXT: "device": "T4",
// EST-JSON-NEXT: "dtype": "f32",
// EST-JSON-NEXT: "kind": "elementwise",
// EST-JSON-NEXT: "signature": "n=2841108 in=2 op=add"
// RUN: perf-train --neusight %S/../CostModel/Inputs/neusight --ml-dir %t/models --rounds=5
// RUN: perf-opt --estimate="models=ml,roofline ml-dir=%t/models" %s | FileCheck %s --check-prefix=EST-ML
// EST-ML: priced by: ml=2 roofline=1

// A --perf-kernel-cost next to --estimate would be overwritten by the
// estimate's own models: refused with a pointer to the estimate's options.
// RUN: not perf-opt --perf-kernel-cost="models=tile,roofline" --estimate %s 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: error: --estimate prices the kernels itself: give its models as --estimate="models=... db=... ml-dir=..." instead of --perf-kernel-cost
