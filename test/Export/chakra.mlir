// RUN: perf-opt %s --perf-data-parallel="devices=2 bucket-mb=1" --perf-kernel-cost="compute-efficiency=1.0 memory-efficiency=1.0" --perf-comm-cost=system=dgx-a100 -o %t.mlir
// RUN: perf-translate --export-chakra --chakra-prefix=%t.trace %t.mlir | FileCheck %s
// RUN: perf-translate --dump-chakra %t.trace.0.et | FileCheck %s --check-prefix=RANK0
// RUN: perf-translate --dump-chakra %t.trace.1.et | FileCheck %s --check-prefix=RANK1
// RUN: not perf-translate --export-chakra --chakra-prefix=%t.raw %s 2>&1 | FileCheck %s --check-prefix=UNPRICED
// RUN: not perf-translate --export-chakra %t.mlir 2>&1 | FileCheck %s --check-prefix=NOPREFIX
// RUN: printf 'garbage' > %t.bad.et
// RUN: not perf-translate --dump-chakra %t.bad.et 2>&1 | FileCheck %s --check-prefix=BADFILE

// Device 0 runs three GEMMs, the two gradient all_reduces (on stream 1) and
// a send to device 1; device 1 takes part in both all_reduces, receives, and
// runs one GEMM.
// CHECK: rank 0: 6 nodes, COMP 3, COMM_SEND 1, COMM_COLL 2
// CHECK: rank 1: 4 nodes, COMP 1, COMM_RECV 1, COMM_COLL 2

// GEMMs of 2 and 16 us on the toy GPU; all_reduce of 2.1e6 B over 2 A100s
// of dgx-a100, NCCL's ring Simple (2 steps, 240 GB/s of bus bandwidth x
// 2/2): 8.4 + 2 x 3.4 + 2.1e6 / 240000 = 23.95 us, 24 in the trace; the
// send of 4000 B, LL: 6.6 + 0.6 + 4000 / 87700 = 7.25 us, 7. Control
// dependencies follow each stream, data dependencies the SSA operands (b1
// reads fwd, the bucket reads b1).
// RANK0: chakra 0.0.4, 6 nodes
// RANK0-NEXT: node 0 COMP 'fwd/gemm' dur=2 ctrl=[] data=[]
// RANK0-NEXT: node 1 COMP 'b1/gemm' dur=2 ctrl=[0] data=[0]
// RANK0-NEXT: node 2 COMM_COLL 'ddp::all_reduce/all_reduce' dur=24 comm=ALL_REDUCE size=2100000 ctrl=[] data=[1]
// RANK0-NEXT: node 3 COMP 'b2/gemm' dur=16 ctrl=[1] data=[1]
// RANK0-NEXT: node 4 COMM_COLL 'ddp::all_reduce/all_reduce' dur=24 comm=ALL_REDUCE size=2100000 ctrl=[2] data=[3]
// RANK0-NEXT: node 5 COMM_SEND 'to1/send' dur=7 size=4000 src=0 dst=1 ctrl=[3] data=[]
// RANK1: chakra 0.0.4, 4 nodes
// RANK1-NEXT: node 0 COMM_COLL {{.*}} ctrl=[] data=[]
// RANK1-NEXT: node 1 COMM_COLL {{.*}} ctrl=[0] data=[]
// RANK1-NEXT: node 2 COMM_RECV 'to1/send' dur=7 size=4000 src=0 dst=1 ctrl=[] data=[]
// RANK1-NEXT: node 3 COMP 'dev1/gemm' dur=2 ctrl=[2] data=[]
// UNPRICED: error: 'perf.gemm' launched by '{{.*}}': has no 'perf.latency_us'
// NOPREFIX: error: --export-chakra needs --chakra-prefix=<path>
// BADFILE: bad.et: {{.+}}
perf.graph @step attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>, phase = "training"} {
  %a = perf.op "fwd" : () -> tensor<4xf32> {
    perf.gemm {m = 100, n = 100, k = 100}
  }
  %b = perf.op "b1"(%a) {perf.grad_bytes = 2100000} : (tensor<4xf32>) -> tensor<4xf32> {
    perf.gemm {m = 100, n = 100, k = 100, pass = #perf.pass<dgrad>}
  }
  perf.op "b2"(%b) {perf.grad_bytes = 2100000} : (tensor<4xf32>) -> () {
    perf.gemm {m = 200, n = 200, k = 200, pass = #perf.pass<dgrad>}
  }
  perf.op "to1" : () -> () {
    perf.send {bytes = 4000, group = array<i64: 0, 1>}
  }
  perf.op "dev1" {device = 1} : () -> () {
    perf.gemm {m = 100, n = 100, k = 100, device = 1}
  }
}
