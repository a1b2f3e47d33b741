// RUN: perf-opt --estimate=kernel-list=%t.json %s > /dev/null
// RUN: FileCheck %s < %t.json
// RUN: perf-opt --perf-kernel-cost --perf-host-overhead --perf-critical-path \
// RUN:   --perf-report="output= kernel-list=%t.report.json" %s
// RUN: FileCheck %s < %t.report.json
// RUN: not perf-opt --estimate=kernel-list=%t.missing/k.json %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD

// The distinct kernels of the graph in the order it first launches them,
// keyed as the db model looks them up (docs/perf-db.md): the two f32 GEMMs
// of the same shape are one entry with count 2; the f16 GEMM of that shape
// and the relu are entries of their own.

// CHECK:      "kernels": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "count": 2,
// CHECK-NEXT:     "device": "A100-SXM4-40GB",
// CHECK-NEXT:     "dtype": "f32",
// CHECK-NEXT:     "kind": "gemm",
// CHECK-NEXT:     "signature": "b=1 m=64 n=512 k=256 ta=0 tb=0"
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "count": 1,
// CHECK-NEXT:     "device": "A100-SXM4-40GB",
// CHECK-NEXT:     "dtype": "f32",
// CHECK-NEXT:     "kind": "elementwise",
// CHECK-NEXT:     "signature": "n=32768 in=1 op=relu"
// CHECK-NEXT:   },
// CHECK-NEXT:   {
// CHECK-NEXT:     "count": 1,
// CHECK-NEXT:     "device": "A100-SXM4-40GB",
// CHECK-NEXT:     "dtype": "f16",
// CHECK-NEXT:     "kind": "gemm",
// CHECK-NEXT:     "signature": "b=1 m=64 n=512 k=256 ta=0 tb=0"
// CHECK-NEXT:   }
// CHECK-NEXT: ],
// CHECK-NEXT: "schema": "perf.kernel_list/1"

// BAD: error: cannot write '{{.*}}k.json'

perf.graph @g attributes {target = #perf.gpu<"A100">, phase = "inference"} {
  %x = perf.op "input" : () -> tensor<64x256xf32>
  %a = perf.op "aten::linear"(%x) : (tensor<64x256xf32>) -> tensor<64x512xf32> {
    perf.gemm {m = 64, n = 512, k = 256}
    perf.elementwise {elements = 32768, fn = "relu"}
  }
  %b = perf.op "aten::linear"(%x) : (tensor<64x256xf32>) -> tensor<64x512xf32> {
    perf.gemm {m = 64, n = 512, k = 256}
  }
  %c = perf.op "aten::linear"(%x) : (tensor<64x256xf32>) -> tensor<64x512xf32> {
    perf.gemm {m = 64, n = 512, k = 256, dtype = f16}
  }
}
