// RUN: perf-sweep %s --arch=ps-worker,allreduce-local --ethernet-gbps=25 --pcie-gbs=10 --tflops=1,2 --hbm-tbs=1 --csv=%t.csv | FileCheck %s
// RUN: FileCheck %s --check-prefix=CSV < %t.csv
// RUN: perf-sweep %s -j 2 > %t.grid
// RUN: FileCheck %s --check-prefix=GRID < %t.grid
// RUN: FileCheck %s --check-prefix=GRIDROW < %t.grid
// RUN: perf-sweep %s --pipeline='none;perf-tensor-parallel{devices=2}' --arch=allreduce-local --ethernet-gbps=25 --pcie-gbs=10 --tflops=1 --hbm-tbs=1 | FileCheck %s --check-prefix=PAR
// RUN: perf-sweep %s --arch=ps-worker --arch-graph=off --ethernet-gbps=25 --pcie-gbs=10 --tflops=1 --hbm-tbs=1 | FileCheck %s --check-prefix=OFF
// RUN: perf-sweep %s --arch=allreduce-local,allreduce-cluster --workers=16 --ethernet-gbps=25 --pcie-gbs=10 --tflops=1 --hbm-tbs=1 | FileCheck %s --check-prefix=W16
// RUN: not perf-sweep %s --arch-graph=maybe 2>&1 | FileCheck %s --check-prefix=BADGRAPH
// RUN: not perf-sweep %s --tflops=1,x 2>&1 | FileCheck %s --check-prefix=BADLIST
// RUN: not perf-sweep %s --pipeline=no-such-pass 2>&1 | FileCheck %s --check-prefix=BADPIPE
// Errors in the model name its file, line and column; the grid and the
// counts are bounded.
// RUN: printf 'perf.graph @g attributes {target = #perf.gpu<"T4">} {\n  perf.op "x" : () -> () {\n    perf.gemm {m = 0, n = 4, k = 4}\n  }\n}\n' > %t.bad.mlir
// RUN: not perf-sweep %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=LOCATED
// RUN: not perf-sweep %t.missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not perf-sweep %s --tflops=inf 2>&1 | FileCheck %s --check-prefix=INF
// RUN: not perf-sweep %s --workers=1000000 2>&1 | FileCheck %s --check-prefix=WORKERS
// RUN: not perf-sweep %s --tflops=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20 --hbm-tbs=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20 --ethernet-gbps=1,2,3,4,5,6,7,8,9,10 --pcie-gbs=1,2,3,4,5,6,7,8,9,10 2>&1 | FileCheck %s --check-prefix=GRIDMAX

// Base system pai-v100-25gbe (8 GPUs a server), its V100 given 1 or 2
// TFLOP/s and 1 TB/s; every figure at 70%. Same arithmetic as
// pai-breakdown.mlir: T_d = 7e6 B / 7 GB/s = 1000 us (8 GPUs sharing PCIe
// under AllReduce-Local: 8000 us), T_c = 2 x 700^3 / (0.7 x peak) = 980 or
// 490 us + 2 us, T_w = 8400 us (PS/Worker) or 350 us (AllReduce-Local).
// Without --pipeline each point runs --perf-pai-architecture for its
// architecture, so the critical path times the weight traffic too. The
// graph's copy is a kernel at PCIe 10 GB/s x 0.8 = 875 us; with 1 us gaps the
// work takes 875 + 1 + 980 (or 490) + 1 + 1.75 = 1858.75 (1368.75) us.
// PS/Worker, 8 parameter servers: 8 pulls and 8 pushes of 875000 B, each
// 25 + 4 + 875000 / 2.1875 GB/s + 875000 / 7 GB/s = 554 us, plus a 1 us gap:
// 1858.75 + 16 x 555 = 10738.75 us (1368.75 + 8880 = 10248.75 us).
// AllReduce-Local: NCCL's ring all_reduce over NVLink, Simple, 56 + 306.25
// = 362.25 us (pai-architecture.mlir works it): 1858.75 + 363.25 = 2222 us
// (1732 us).
// CHECK: arch eth_gbps pcie_gbs tflops hbm_tbs T_d_us T_c_comp_us T_c_mem_us T_w_us T_total_us crit_path_us
// CHECK-NEXT: ps-worker 25 10 1 1 1000.0 980.0 2.0 8400.0 10382.0 10738.8
// CHECK-NEXT: ps-worker 25 10 2 1 1000.0 490.0 2.0 8400.0 9892.0 10248.8
// CHECK-NEXT: allreduce-local 25 10 1 1 8000.0 980.0 2.0 350.0 9332.0 2222.0
// CHECK-NEXT: allreduce-local 25 10 2 1 8000.0 490.0 2.0 350.0 8842.0 1732.0
// CSV: arch,ethernet_gbps,pcie_gbs,tflops,hbm_tbs,t_d_us,t_c_compute_us,t_c_memory_us,t_w_us,t_total_us,critical_path_us,peak_bytes,out_of_memory,pipeline
// CSV-NEXT: ps-worker,25.00,10.00,1.00,1.00,1000.000,980.000,2.000,8400.000,10382.000,10738.750,32,false,"none"
// CSV: allreduce-local,25.00,10.00,2.00,1.00,8000.000,490.000,2.000,350.000,8842.000,1732.000,32,false,"none"

// Parallelism settings are one more axis; a point with a pipeline keeps the
// graph's own collectives (no architecture rewrite, --arch-graph=auto).
// 2-way tensor parallelism makes the GEMM column-parallel (n 700 -> 350:
// 490 us) and splits the relu after it (1 us); each rank holds half the
// weights, so T_w halves (175 us).
// PAR: arch {{.*}} crit_path_us peak_gib memory pipeline
// PAR-NEXT: allreduce-local 25 10 1 1 8000.0 980.0 2.0 350.0 9332.0 2222.0 0.00 fits none
// PAR-NEXT: allreduce-local 25 10 1 1 8000.0 490.0 1.0 175.0 8666.0 {{[0-9.]+}} 0.00 fits perf-tensor-parallel{devices=2}

// The default grid is Table III of the PAI paper: 3 Ethernet x 2 PCIe x 4
// FLOP/s x 3 memory settings, for 3 architectures: 216 rows. Ethernet at
// 100 Gb/s cuts the PS/Worker T_w to 2W / 8.75 GB/s + 2W / 7 GB/s =
// 1600 + 2000 us.
// GRID-COUNT-72: ps-worker
// GRID-COUNT-72: allreduce-local
// The critical path answers "PS/Worker or AllReduce, 25 or 100 GbE": at
// 8 TFLOP/s and 1 TB/s the work takes 875 + 1 + 122.5 + 1 + 1.75 =
// 1001.25 us; PS/Worker adds 16 x (29 + 400 + 125 + 1) = 8880 us on 25 GbE,
// 16 x (29 + 100 + 125 + 1) = 4080 us on 100 GbE (the sweep keeps the base
// system's 25 us Ethernet alpha); AllReduce-Local adds 363.25 us on
// either.
// GRIDROW: ps-worker 25 10 8 1 1000.0 122.5 2.0 8400.0 9524.5 9881.2
// GRIDROW: ps-worker 100 10 8 1 1000.0 122.5 2.0 3600.0 4724.5 5081.2
// GRIDROW: allreduce-local 25 10 8 1 8000.0 122.5 2.0 350.0 8474.5 1364.5
// GRIDROW: allreduce-local 100 10 8 1 8000.0 122.5 2.0 350.0 8474.5 1364.5
// GRID-COUNT-72: allreduce-cluster
// --arch-graph=off leaves the graph alone: the critical path is the work.
// OFF: ps-worker 25 10 1 1 1000.0 980.0 2.0 8400.0 10382.0 1858.8
// 16 workers: AllReduce-Local stays one full server (363.25 us as above);
// AllReduce-Cluster spans two, NCCL's ring all_reduce through each server's
// one 25 GbE NIC, 4625.04 us (pai-architecture.mlir works it): 1858.75 +
// 4625.04 + 1 = 6484.79 us.
// W16: allreduce-local 25 10 1 1 8000.0 980.0 2.0 350.0 9332.0 2222.0
// W16-NEXT: allreduce-cluster 25 10 1 1 8000.0 980.0 2.0 3550.0 12532.0 6484.8
// BADGRAPH: perf-sweep: error: --arch-graph: expected auto, on or off, got 'maybe'
// BADLIST: perf-sweep: error: --tflops: expected positive numbers, got 'x'
// LOCATED: bad.mlir:3:5: error: custom op 'perf.op' 'perf.gemm' attribute 'm' failed to satisfy constraint: a positive 64-bit integer at most max-extent (2^40)
// MISSING: perf-sweep: error: cannot read: No such file or directory ({{.*}}missing.mlir)
// INF: perf-sweep: error: --tflops: expected positive numbers, got 'inf'
// WORKERS: perf-sweep: error: --workers is 1000000, above the limit max-devices (65536)
// GRIDMAX: perf-sweep: error: the grid's point count is 120000, above the limit max-sweep-points (100000)
// BADPIPE: perf-sweep: error: --pipeline 'no-such-pass': {{.*}}'no-such-pass' does not refer to a registered pass
perf.graph @step attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>, phase = "training"} {
  %x = perf.op "input" : () -> tensor<4xf32> {
    perf.memcpy {bytes = 7000000, kind = #perf.copy<h2d>}
  }
  %y = perf.op "matmul"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
    perf.gemm {m = 700, n = 700, k = 700}
  }
  %z = perf.op "relu"(%y) : (tensor<4xf32>) -> tensor<4xf32> {
    perf.elementwise {elements = 175000}
  }
  perf.op "grads"(%z) {perf.grad_bytes = 7000000} : (tensor<4xf32>) -> ()
}
