// RUN: perf-opt --perf-report %s -o /dev/null | FileCheck %s
// RUN: perf-opt --perf-report=format=json %s -o /dev/null | FileCheck %s --check-prefix=JSON

// The report names the critical path's kernels by their place in the
// unrolled launch order and lists them in the path's own (time) order,
// which need not be launch order: here kernel 1, then 0, then 2. Index 7 is
// past the graph's three kernels and -1 before them: neither names a
// kernel, and both are left out.
// CHECK: critical path (3 kernels):
// CHECK-NEXT: 0.000 ..      5.000 us  softmax        b
// CHECK-NEXT: 5.000 ..      9.000 us  gemm           a
// CHECK-NEXT: 10.000 ..     12.000 us  layernorm      c
// CHECK-NOT: us

// JSON: "critical_path": [
// JSON-NEXT: {
// JSON-NEXT: "end_us": 5,
// JSON-NEXT: "kernel": "softmax",
// JSON-NEXT: "op": "b",
// JSON-NEXT: "start_us": 0
// JSON-NEXT: },
// JSON-NEXT: {
// JSON-NEXT: "end_us": 9,
// JSON-NEXT: "kernel": "gemm",
// JSON-NEXT: "op": "a",
// JSON-NEXT: "start_us": 5
// JSON-NEXT: },
// JSON-NEXT: {
// JSON-NEXT: "end_us": 12,
// JSON-NEXT: "kernel": "layernorm",
// JSON-NEXT: "op": "c",
// JSON-NEXT: "start_us": 10
// JSON-NEXT: }
// JSON-NEXT: ],
perf.graph @g attributes {perf.estimate = {
    critical_path = array<i64: 1, 0, 7, 2, -1>,
    critical_path_times_us = array<f64: 0.0, 5.0, 5.0, 9.0, 9.0, 10.0, 10.0, 12.0, 12.0, 13.0>,
    e2e_us = 13.0 : f64, gpu_active_us = 11.0 : f64, idle_us = 2.0 : f64,
    host_us = 1.0 : f64, sum_kernel_us = 11.0 : f64, host_bound = false}} {
  perf.op "a" : () -> () {
    perf.gemm {m = 8, n = 8, k = 8}
  }
  perf.op "b" : () -> () {
    perf.softmax {rows = 8, cols = 8}
  }
  perf.op "c" : () -> () {
    perf.layernorm {rows = 8, cols = 8}
  }
}
