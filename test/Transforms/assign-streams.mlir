// RUN: perf-opt %s --perf-assign-streams=streams=2 | FileCheck %s
// RUN: perf-opt %s --perf-assign-streams=streams=3 --perf-host-overhead=table=%S/Inputs/overheads.json --perf-critical-path | FileCheck %s --check-prefix=TIME
// RUN: perf-opt %s --perf-assign-streams=streams=1 --perf-host-overhead=table=%S/Inputs/overheads.json --perf-critical-path | FileCheck %s --check-prefix=ONE
// RUN: not perf-opt %s --perf-assign-streams=streams=0 2>&1 | FileCheck %s --check-prefix=BAD

// %x forks into a, b and c. a continues the main branch (stream 0); b and
// c start new branches, round-robin over 2 streams: 1, then 0. d joins a,
// b and c and keeps a's stream; e continues b's branch (stream 1). Stream
// 0 is the default and is not printed.
// BAD: streams must be at least 1, got 0

// CHECK-LABEL: perf.graph @fork
// CHECK-SAME: perf.branches = 3 : i64
// CHECK: perf.op "a"
// CHECK-NEXT: perf.gemm {k = 8 : i64, m = 8 : i64, n = 8 : i64, perf.latency_us = 1.000000e+02 : f64}{{$}}
// CHECK: perf.op "b"
// CHECK-NEXT: perf.gemm {{.*}}stream = 1
// CHECK: perf.op "c"
// CHECK-NEXT: perf.gemm {k = 8 : i64, m = 8 : i64, n = 8 : i64, perf.latency_us = 1.000000e+02 : f64}{{$}}
// CHECK: perf.op "d"
// CHECK-NEXT: perf.elementwise {elements = 8 : i64, inputs = 3 : i64, perf.latency_us = 1.000000e+00 : f64}{{$}}
// CHECK: perf.op "e"
// CHECK-NEXT: perf.elementwise {{.*}}stream = 1

// Latencies are given; T1..T5 = 1..5 us (Inputs/overheads.json), 1 us gap.
// Three streams (a on 0, b on 1, c on 2):
//   input: host 0 + T1 + T5 = 6
//   a: host 6 + 1 + 2 = 9, kernel at 9 + T4/2 = 11..111, host 9 + 4 + 3 = 16
//   b: host 19, kernel 21..121 (stream 1), host 26
//   c: host 29, kernel 31..131 (stream 2), host 36
//   d: host 39, ready 41, waits for c: 131..132, host 46
//   e: host 49, ready 51, waits for b's stream: 122..123, host 56
//   end-to-end 132 us.
// One stream: a 11..111, b 112..212, c 213..313, d 314..315, e 316..317:
//   317 us.
// TIME: perf.estimate = {{.*}}e2e_us = 1.320000e+02
// ONE: perf.estimate = {{.*}}e2e_us = 3.170000e+02
perf.graph @fork attributes {target = #perf.gpu<"A100">} {
  %x = perf.op "input" : () -> tensor<8xf32>
  %a = perf.op "a"(%x) : (tensor<8xf32>) -> tensor<8xf32> {
    perf.gemm {m = 8, n = 8, k = 8, perf.latency_us = 100.0}
  }
  %b = perf.op "b"(%x) : (tensor<8xf32>) -> tensor<8xf32> {
    perf.gemm {m = 8, n = 8, k = 8, perf.latency_us = 100.0}
  }
  %c = perf.op "c"(%x) : (tensor<8xf32>) -> tensor<8xf32> {
    perf.gemm {m = 8, n = 8, k = 8, perf.latency_us = 100.0}
  }
  %d = perf.op "d"(%a, %b, %c) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
    perf.elementwise {elements = 8, inputs = 3, perf.latency_us = 1.0}
  }
  %e = perf.op "e"(%b) : (tensor<8xf32>) -> tensor<8xf32> {
    perf.elementwise {elements = 8, perf.latency_us = 1.0}
  }
}
