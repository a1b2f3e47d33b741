// perf.repeat is timed, summed and sized as the graph it stands for: the same
// figures with and without --perf-unroll-repeat.
// RUN: perf-opt %s --perf-kernel-cost="models=roofline compute-efficiency=1.0 memory-efficiency=1.0" --perf-host-overhead=table=%S/Inputs/overheads.json --perf-critical-path --perf-report=output=%t.repeat -o /dev/null
// RUN: FileCheck %s < %t.repeat
// RUN: perf-opt %s --perf-unroll-repeat --perf-kernel-cost="models=roofline compute-efficiency=1.0 memory-efficiency=1.0" --perf-host-overhead=table=%S/Inputs/overheads.json --perf-critical-path --perf-report=output=%t.unrolled -o /dev/null
// RUN: FileCheck %s < %t.unrolled
// RUN: perf-opt %s --perf-unroll-repeat | FileCheck %s --check-prefix=UNROLL
// RUN: not perf-opt %s --perf-fuse-elementwise 2>&1 | FileCheck %s --check-prefix=REFUSE

// Toy GPU: 1 TFLOP/s. gemm 1000^3 = 2e9 FLOP -> 2000 us; gemm 100^3 -> 2 us.
// T1..T5 = 1..5 us, 1 us kernel gap. An op with one kernel holds the host
// T1 + T2 + T4 + T3 = 10 us and launches its kernel T4/2 = 2 us after T1+T2.
//
// @chain: "a" has no kernel (host T1 + T2 + T3 = 6 us: 0..6); three copies
// of "layer", each reading the one before:
//   copy 1: host 6..16,  gemm at 6+3+2 = 11 .. 2011
//   copy 2: host 16..26, gemm at max(21, 2011+1) = 2012 .. 4012
//   copy 3: host 26..36, gemm at 4013 .. 6013
// the sync: host 36 + T1 = 37, waits for the stream: 6013.
// CHECK-LABEL: perf estimate: @chain
// CHECK-NEXT: end-to-end time 6013.000 us
// CHECK-NEXT: GPU active 6000.000 us
// CHECK: sum of kernels 6000.000 us  (3 kernels, 5 ops)
// CHECK-NEXT: device time by kernel kind:
// CHECK-NEXT: gemm 6000.000 us 3
// CHECK-NEXT: priced by: roofline=3
// Each copy's output (1024x1024 f32, 4 MiB) lives until the next copy has
// read it: two at a time.
// CHECK: activations 0.008 
// CHECK: critical path (3 kernels):
// CHECK-NEXT: 11.000 .. 2011.000 us  gemm layer
// CHECK-NEXT: 2012.000 .. 4012.000 us  gemm layer
// CHECK-NEXT: 4013.000 .. 6013.000 us  gemm layer
perf.graph @chain attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>} {
  %x = perf.op "a" : () -> tensor<1024x1024xf32>
  %y = perf.repeat 3 (%x) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  ^bb0(%h: tensor<1024x1024xf32>):
    %z = perf.op "layer"(%h) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
      perf.gemm {m = 1000, n = 1000, k = 1000}
    }
    perf.yield %z : tensor<1024x1024xf32>
  }
  perf.sync
}

// @nested: "a" (host 0..6), 2 x 2 copies of "layer" (host 6..46, gemms
// 11..2011, 2012..4012, 4013..6013, 6014..8014), then "tail" on stream 1
// reads the last copy's output: host 46..56, its gemm ready at 46+3+2 = 51
// waits for 8014: 8014 .. 8016.
// CHECK-LABEL: perf estimate: @nested
// CHECK-NEXT: end-to-end time 8016.000 us
// CHECK: sum of kernels 8002.000 us  (5 kernels, 6 ops)
// CHECK: critical path (5 kernels):
// CHECK-NEXT: 11.000 .. 2011.000 us  gemm layer
// CHECK: 6014.000 .. 8014.000 us  gemm layer
// CHECK-NEXT: 8014.000 .. 8016.000 us  gemm tail
perf.graph @nested attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>} {
  %x = perf.op "a" : () -> tensor<4xf32>
  %r = perf.repeat 2 (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>):
    %i = perf.repeat 2 (%h) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%g: tensor<4xf32>):
      %z = perf.op "layer"(%g) : (tensor<4xf32>) -> tensor<4xf32> {
        perf.gemm {m = 1000, n = 1000, k = 1000}
      }
      perf.yield %z : tensor<4xf32>
    }
    perf.yield %i : tensor<4xf32>
  }
  perf.op "tail"(%r) : (tensor<4xf32>) -> () {
    perf.gemm {m = 100, n = 100, k = 100, stream = 1}
  }
}

// UNROLL-LABEL: perf.graph @chain
// UNROLL: %[[X:.*]] = perf.op "a"
// UNROLL-NEXT: %[[L1:.*]] = perf.op "layer"(%[[X]])
// UNROLL: %[[L2:.*]] = perf.op "layer"(%[[L1]])
// UNROLL: perf.op "layer"(%[[L2]])
// UNROLL: perf.sync
// UNROLL-NOT: perf.repeat
// UNROLL-LABEL: perf.graph @nested
// UNROLL-COUNT-4: perf.op "layer"
// UNROLL: perf.op "tail"(%{{.*}})
// UNROLL-NOT: perf.repeat

// REFUSE: error: 'perf.repeat' op is not supported by --perf-fuse-elementwise: run --perf-unroll-repeat before it
