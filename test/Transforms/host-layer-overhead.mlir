// RUN: perf-opt %s --perf-host-overhead=table=%S/Inputs/layer-overheads.json | FileCheck %s
// RUN: perf-opt %s --perf-host-overhead="table=%S/Inputs/layer-overheads.json scale=2" | FileCheck %s --check-prefix=SCALE
// RUN: perf-opt %s --perf-device=a100 --estimate="models=roofline overheads=%S/Inputs/layer-overheads.json" 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not perf-opt %s --estimate="overheads=no-such-host" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// A table's layer_us (a transformer block's host time beyond its ops: the
// framework's module calls and Python) goes into the T1 of each block's
// first op (the first op of each perf.layer), once: T1 3 + 500 = 503 there,
// 3 elsewhere, and an op of no block pays none. The repeat's body is one
// block whose copies each start with its first op.
// CHECK: perf.graph @g attributes {perf.host_table = "{{.*}}layer-overheads.json"
// CHECK: perf.op "embed" {perf.overhead_us = array<f64: 3.000000e+00,
// CHECK: perf.op "ln" {perf.layer = 0 : i64, perf.overhead_us = array<f64: 5.030000e+02,
// CHECK: perf.op "fc" {perf.layer = 0 : i64, perf.overhead_us = array<f64: 3.000000e+00,
// CHECK: perf.op "ln" {perf.layer = 1 : i64, perf.overhead_us = array<f64: 5.030000e+02,
// CHECK: perf.op "fc" {perf.layer = 1 : i64, perf.overhead_us = array<f64: 3.000000e+00,
// CHECK: perf.op "ln"(%{{.*}}) {perf.layer = 2 : i64, perf.overhead_us = array<f64: 5.030000e+02,
// CHECK: perf.op "fc"(%{{.*}}) {perf.layer = 2 : i64, perf.overhead_us = array<f64: 3.000000e+00,
// CHECK: perf.op "head" {perf.overhead_us = array<f64: 3.000000e+00,
// A host twice as slow: both doubled.
// SCALE: perf.op "ln" {perf.layer = 0 : i64, perf.overhead_us = array<f64: 1.006000e+03,
// The report names the table.
// REPORT: host overheads    {{.*}}layer-overheads.json
// UNKNOWN: error: no host 'no-such-host' in the catalog ({{.*}}h200-vm{{.*}}) and no such table file; perf-opt --list-hosts lists the catalog
perf.graph @g {
  perf.op "embed" : () -> () {
    perf.elementwise {elements = 64}
  }
  perf.op "ln" {perf.layer = 0} : () -> () {
    perf.layernorm {rows = 8, cols = 8}
  }
  perf.op "fc" {perf.layer = 0} : () -> () {
    perf.gemm {m = 8, n = 8, k = 8}
  }
  perf.op "ln" {perf.layer = 1} : () -> () {
    perf.layernorm {rows = 8, cols = 8}
  }
  %x = perf.op "fc" {perf.layer = 1} : () -> tensor<4xf32> {
    perf.gemm {m = 8, n = 8, k = 8}
  }
  %y = perf.repeat 2 (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>):
    %a = perf.op "ln"(%h) {perf.layer = 2} : (tensor<4xf32>) -> tensor<4xf32> {
      perf.layernorm {rows = 8, cols = 8}
    }
    %b = perf.op "fc"(%a) {perf.layer = 2} : (tensor<4xf32>) -> tensor<4xf32> {
      perf.gemm {m = 8, n = 8, k = 8}
    }
    perf.yield %b : tensor<4xf32>
  }
  perf.op "head" : () -> () {
    perf.gemm {m = 8, n = 8, k = 8}
  }
}
