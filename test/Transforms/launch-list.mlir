// RUN: perf-opt %s --perf-kernel-cost=models=roofline --perf-comm-cost --perf-host-overhead --perf-critical-path="launch-list=%t.json" -o /dev/null
// RUN: FileCheck %s < %t.json
// RUN: perf-opt %s --estimate="models=roofline launch-list=%t.estimate.json" > /dev/null
// RUN: FileCheck %s < %t.estimate.json

// The launches in the order the host issues them, numbered from 0: a
// kernel waits for the last launch, on each other stream, of every op it
// reads from (its own stream runs in order). "c" reads "a" (last launch 1,
// on stream 0) and "b" (on stream 1, its own): it waits for launch 1.
// The all_reduce on stream 2 reads "c": it waits for launch 3.
// The first GEMM is the roofline's: 2 x 64^3 FLOPs at 0.7 of the A100's
// 19.5 TFLOP/s (its 48 KiB at 0.8 of 2039 GB/s take less), 0.0384094 us.
perf.graph @g attributes {target = #perf.gpu<"A100-SXM4-80GB">} {
  %a = perf.op "a" : () -> tensor<4xf32> {
    perf.gemm {m = 64, n = 64, k = 64}
    perf.elementwise {elements = 64}
  }
  %b = perf.op "b" : () -> tensor<4xf32> {
    perf.elementwise {elements = 64, stream = 1}
  }
  %c = perf.op "c"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    perf.gemm {m = 64, n = 64, k = 64, stream = 1, dtype = bf16, tensor_cores}
  }
  perf.sync
  perf.op "d"(%c) : (tensor<4xf32>) -> () {
    perf.all_reduce {bytes = 1024, group = array<i64: 0, 1>, stream = 2}
  }
}

// CHECK: {"schema": "perf.launch_list/1", "graphs": [
// CHECK-NEXT: {"device":"A100-SXM4-80GB","name":"g","predicted_us":{{[0-9.]+}}, "launches": [
// CHECK-NEXT: {"after":[],"device":0,"dtype":"f32","kind":"gemm","name":"a","op":0,"predicted_us":0.03840937{{[0-9]*}},"signature":"b=1 m=64 n=64 k=64 ta=0 tb=0","stream":0,"type":"kernel"},
// CHECK-NEXT: {"after":[],"device":0,"dtype":"f32","kind":"elementwise","name":"a","op":0,{{.*}}"signature":"n=64 in=1 op=unknown","stream":0,"type":"kernel"},
// CHECK-NEXT: {"after":[],"device":0,"dtype":"f32","kind":"elementwise","name":"b","op":1,{{.*}}"stream":1,"type":"kernel"},
// CHECK-NEXT: {"after":[1],"device":0,"dtype":"bf16","kind":"gemm","name":"c","op":2,{{.*}}"stream":1,"type":"kernel"},
// CHECK-NEXT: {"device":0,"name":"perf.sync","op":3,"stream":-1,"type":"sync"},
// CHECK-NEXT: {"after":[3],"bytes":1024,"device":0,"dtype":"f32","group":[0,1],"kind":"all_reduce","name":"d","op":4,{{.*}}"stream":2,"type":"collective"}
// CHECK-NEXT: ]}
// CHECK-NEXT: ]}

// perf-bench's example launch list is what perf-opt writes for the MLP step.
// RUN: perf-opt %perf_src/examples/mlp_training.mlir --estimate="models=roofline launch-list=%t.mlp.json" > /dev/null
// RUN: diff %t.mlp.json %perf_src/runtime/bench/examples/mlp-launches.json
