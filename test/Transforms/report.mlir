// RUN: perf-opt --estimate %s | FileCheck %s
// RUN: perf-opt --estimate=format=json %s | FileCheck %s --check-prefix=JSON
// RUN: perf-opt --estimate=format=json %s | FileCheck %s --check-prefix=JSON
// RUN: perf-opt --estimate %s -o %t.mlir && FileCheck %s --check-prefix=IR < %t.mlir
// RUN: not perf-opt --estimate=format=yaml %s 2>&1 | FileCheck %s --check-prefix=FMT
// RUN: not perf-opt --perf-report %s 2>&1 | FileCheck %s --check-prefix=NOEST

// Toy GPU of 1 TFLOP/s and 1 TB/s at the default efficiencies (0.7 compute,
// 0.8 memory); default overheads T1=8, T2=10, T3=5, T4=10, T5=5.
// gemm 1000^3 = 2e9 FLOP / 0.7e12 = 2857.143 us; one op:
//   host 8+10 = 18, kernel at 18+5 = 23 .. 2880.143, host 18+10+5 = 33.
// CHECK: perf estimate: @g (inference) on toy
// CHECK-NEXT: end-to-end time         2880.143 us
// CHECK-NEXT: GPU active              2857.143 us  ( 99.2%)
// CHECK-NEXT: GPU idle                  23.000 us  (  0.8%)
// CHECK-NEXT: host time                 33.000 us  (device-bound)
// CHECK-NEXT: sum of kernels          2857.143 us  (1 kernels, 1 ops)
// CHECK-NEXT: device time by kernel kind:
// CHECK-NEXT: gemm                 2857.143 us       1
// CHECK-NEXT: priced by: roofline=1
// CHECK-NEXT: critical path (1 kernels):
// CHECK-NEXT: 23.000 ..   2880.143 us  gemm           mm

// JSON: "e2e_us": 2880.14285714
// JSON: "graph": "g"
// JSON: "idle_us": 23
// JSON: "target": "toy"

// IR: perf.estimate = {critical_path = array<i64: 0>, critical_path_times_us = array<f64: 2.300000e+01, 2880.1428571428573>, devices = [{active_us = 2857.1428571428573 : f64

// FMT: error: report format must be text or json, got 'yaml'
// NOEST: error: no estimate to report; run --perf-critical-path first
perf.graph @g attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>} {
  perf.op "mm" : () -> () {
    perf.gemm {m = 1000, n = 1000, k = 1000}
  }
}
