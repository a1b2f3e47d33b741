// RUN: perf-opt %s --perf-pai-breakdown="arch=ps-worker workers=8" -o /dev/null | FileCheck %s --check-prefix=PS
// RUN: perf-opt %s --perf-pai-breakdown="arch=allreduce-local workers=8" -o /dev/null | FileCheck %s --check-prefix=LOCAL
// RUN: perf-opt %s --perf-pai-breakdown="arch=allreduce-cluster workers=16" -o /dev/null | FileCheck %s --check-prefix=CLUSTER
// RUN: perf-opt %s --perf-kernel-cost --perf-critical-path --perf-pai-breakdown="arch=1w1g workers=1 output=" | FileCheck %s --check-prefix=ATTR
// RUN: not perf-opt %s --perf-pai-breakdown=arch=ring 2>&1 | FileCheck %s --check-prefix=BAD

// pai-v100-25gbe: PCIe 10 GB/s, NVLink 50 GB/s, Ethernet 25 Gb/s = 3.125
// GB/s, 8 GPUs a server, everything at 70%. Toy GPU: 1 TFLOP/s, 1 TB/s.
//   T_d = 7e6 B / 7 GB/s = 1000 us per GPU; 8 GPUs of a server share the
//         PCIe link under AllReduce: 8000 us
//   T_c = 2 x 700^3 FLOP / 0.7 TFLOP/s = 980 us (GEMM, compute-bound)
//       + 175000 x 2 x 4 B / 0.7 TB/s = 2 us (elementwise, memory-bound)
//   W = 7e6 B of gradients
//   PS/Worker:  2W / 2.1875 GB/s + 2W / 7 GB/s = 6400 + 2000 = 8400 us
//   AR-Local:   2 (7/8) W / 35 GB/s = 350 us
//   AR-Cluster: 350 us + 2 (1/2) W / 2.1875 GB/s = 350 + 3200 = 3550 us
// PS: PAI breakdown @step (ps-worker, 8 workers, system pai-v100-25gbe)
// PS-NEXT: T_d input I/O (PCIe) 1000.0 us 9.6%
// PS-NEXT: T_c compute-bound 980.0 us
// PS-NEXT: T_c memory-bound 2.0 us
// PS-NEXT: T_w weights/gradients 8400.0 us
// PS-NEXT: T_total (no overlap) 10382.0 us
// PS-NEXT: throughput (steps/s x workers) 770.6
// LOCAL: T_d input I/O (PCIe) 8000.0 us
// LOCAL: T_w weights/gradients 350.0 us
// LOCAL-NEXT: T_total (no overlap) 9332.0 us
// CLUSTER: T_d input I/O (PCIe) 8000.0 us
// CLUSTER: T_w weights/gradients 3550.0 us
// 1w1g: no weight traffic; the critical path (roofline at the default 70% /
// 80% efficiencies) comes along: copy 7e6 B at 1 TB/s x 0.8 = 8.75 us, GEMM
// 980 us, elementwise 1.75 us, with 1 us gaps: 992.5 us.
// ATTR: perf.pai = {arch = "1w1g", critical_path_us = 9.925000e+02 : f64
// ATTR-SAME: t_c_compute_us = 9.800000e+02 : f64, t_c_memory_us = 2.000000e+00 : f64, t_d_us = 1.000000e+03 : f64, t_w_us = 0.000000e+00 : f64, total_us = 1.982000e+03 : f64
// BAD: error: --perf-pai-breakdown: unknown arch 'ring'
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
