// RUN: perf-opt %s --perf-device=T4 | FileCheck %s
// RUN: perf-opt %s --perf-set-target=device=l4 | FileCheck %s --check-prefix=L4
// RUN: perf-opt %s --perf-device-file=%S/Inputs/toy-gpu.json | FileCheck %s --check-prefix=FILE
// RUN: not perf-opt %s --perf-device=Z9000 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not perf-opt %s --perf-device-file=%t.missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not perf-opt %s --perf-kernel-cost 2>&1 | FileCheck %s --check-prefix=NOTARGET

// CHECK: perf.graph @g attributes {target = #perf.gpu<"T4", sms = 40, cores_per_sm = 64, clock_mhz = 1590, fp64_tflops = 0.25, fp32_tflops = 8.1
// L4: #perf.gpu<"L4", sms = 58
// FILE: #perf.gpu<"toy", sms = 1, cores_per_sm = 0, clock_mhz = 0, fp64_tflops = 0, fp32_tflops = 1,
// UNKNOWN: error: unknown device 'Z9000'; known: P100-PCIe-16GB, P4,
// MISSING: perf-opt: error: cannot read: No such file or directory ({{.*}}missing.json)
// NOTARGET: set-target.mlir:[[@LINE+1]]:1: error: graph @g has no target GPU; set `target = #perf.gpu<"...">` or pass --perf-device=<name>
perf.graph @g {
  perf.op "mm" : () -> () {
    perf.gemm {m = 8, n = 8, k = 8}
  }
}
