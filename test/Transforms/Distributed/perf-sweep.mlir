// RUN: perf-sweep %s --arch=ps-worker,allreduce-local --ethernet-gbps=25 --pcie-gbs=10 --tflops=1,2 --hbm-tbs=1 --csv=%t.csv | FileCheck %s
// RUN: FileCheck %s --check-prefix=CSV < %t.csv
// RUN: perf-sweep %s -j 2 > %t.grid
// RUN: FileCheck %s --check-prefix=GRID < %t.grid
// RUN: FileCheck %s --check-prefix=GRIDROW < %t.grid
// RUN: perf-sweep %s --pipeline='none;perf-tensor-parallel{devices=2}' --arch=allreduce-local --ethernet-gbps=25 --pcie-gbs=10 --tflops=1 --hbm-tbs=1 | FileCheck %s --check-prefix=PAR
// RUN: not perf-sweep %s --tflops=1,x 2>&1 | FileCheck %s --check-prefix=BADLIST
// RUN: not perf-sweep %s --pipeline=no-such-pass 2>&1 | FileCheck %s --check-prefix=BADPIPE

// Base system pai-v100-25gbe (8 GPUs a server), its V100 given 1 or 2
// TFLOP/s and 1 TB/s; every figure at 70%. Same arithmetic as
// pai-breakdown.mlir: T_d = 7e6 B / 7 GB/s = 1000 us (8 GPUs sharing PCIe
// under AllReduce-Local: 8000 us), T_c = 2 x 700^3 / (0.7 x peak) = 980 or
// 490 us + 2 us, T_w = 8400 us (PS/Worker) or 350 us (AllReduce-Local).
// The critical path prices the copy at PCIe 10 GB/s x 0.8 = 875 us:
// 875 + 1 + 980 (or 490) + 1 + 1.75 = 1858.75 (1368.75) us.
// CHECK: arch eth_gbps pcie_gbs tflops hbm_tbs T_d_us T_c_comp_us T_c_mem_us T_w_us T_total_us crit_path_us
// CHECK-NEXT: ps-worker 25 10 1 1 1000.0 980.0 2.0 8400.0 10382.0 1858.8
// CHECK-NEXT: ps-worker 25 10 2 1 1000.0 490.0 2.0 8400.0 9892.0 1368.8
// CHECK-NEXT: allreduce-local 25 10 1 1 8000.0 980.0 2.0 350.0 9332.0 1858.8
// CHECK-NEXT: allreduce-local 25 10 2 1 8000.0 490.0 2.0 350.0 8842.0 1368.8
// CSV: arch,ethernet_gbps,pcie_gbs,tflops,hbm_tbs,t_d_us,t_c_compute_us,t_c_memory_us,t_w_us,t_total_us,critical_path_us,pipeline
// CSV-NEXT: ps-worker,25.00,10.00,1.00,1.00,1000.000,980.000,2.000,8400.000,10382.000,1858.750,"none"
// CSV: allreduce-local,25.00,10.00,2.00,1.00,8000.000,490.000,2.000,350.000,8842.000,1368.750,"none"

// Parallelism settings are one more axis. 2-way tensor parallelism makes
// the GEMM column-parallel (n 700 -> 350: 490 us) and splits the relu after
// it (1 us); the gradient bytes of the graph stay.
// PAR: arch {{.*}} crit_path_us pipeline
// PAR-NEXT: allreduce-local 25 10 1 1 8000.0 980.0 2.0 350.0 9332.0 1858.8 none
// PAR-NEXT: allreduce-local 25 10 1 1 8000.0 490.0 1.0 350.0 8841.0 {{[0-9.]+}} perf-tensor-parallel{devices=2}

// The default grid is Table III of the PAI paper: 3 Ethernet x 2 PCIe x 4
// FLOP/s x 3 memory settings, for 3 architectures: 216 rows. Ethernet at
// 100 Gb/s cuts the PS/Worker T_w to 2W / 8.75 GB/s + 2W / 7 GB/s =
// 1600 + 2000 us.
// GRID-COUNT-72: ps-worker
// GRID-COUNT-72: allreduce-local
// GRIDROW: ps-worker 100 10 8 1 1000.0 122.5 2.0 3600.0
// GRID-COUNT-72: allreduce-cluster
// BADLIST: perf-sweep: error: --tflops: expected positive numbers, got 'x'
// BADPIPE: perf-sweep: error: bad --pipeline: {{.*}}'no-such-pass' does not refer to a registered pass
perf.graph @step attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>, phase = "training"} {
  %x = perf.op "input" : () -> tensor<4xf32> {
    perf.memcpy {bytes = 7000000, kind = "h2d"}
  }
  %y = perf.op "matmul"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
    perf.gemm {m = 700, n = 700, k = 700}
  }
  %z = perf.op "relu"(%y) : (tensor<4xf32>) -> tensor<4xf32> {
    perf.elementwise {elements = 175000}
  }
  perf.op "grads"(%z) {perf.grad_bytes = 7000000} : (tensor<4xf32>) -> ()
}
