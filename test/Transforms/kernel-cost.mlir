// RUN: perf-opt %s --perf-kernel-cost | FileCheck %s
// RUN: perf-opt %s --perf-kernel-cost="model=roofline compute-efficiency=0.5 memory-efficiency=1.0" | FileCheck %s --check-prefix=HALF
// RUN: not perf-opt %s --perf-kernel-cost=models=oracle 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not perf-opt %s --perf-kernel-cost="compute-efficiency=1.5" 2>&1 | FileCheck %s --check-prefix=EFF

// A100 figures: 19.5 TFLOP/s fp32, 312 TFLOP/s bf16 tensor cores, 1555 GB/s.
// gemm 1024^3 fp32: 2.147e9 FLOP / (19.5e12 * 0.7) = 157.30 us.
// Same in bf16 on tensor cores: 2.147e9 / (312e12 * 0.7) = 9.832 us; bytes
// 3 * 2 MiB = 6.29e6 / (1555e9 * 0.8) = 5.06 us, so still compute bound.
// h2d copy of 32 MB over PCIe 32 GB/s * 0.8 = 1250 us.
// CHECK: perf.gemm {k = 1024 : i64, m = 1024 : i64, n = 1024 : i64, perf.cost_model = "roofline", perf.latency_us = 157.3{{[0-9]+}} : f64}
// CHECK: perf.gemm {dtype = bf16, {{.*}}perf.latency_us = 9.83{{[0-9]+}} : f64, tensor_cores}
// CHECK: perf.memcpy {bytes = 32000000 : i64, kind = #perf.copy<h2d>, perf.cost_model = "roofline", perf.latency_us = 1.250000e+03 : f64}
// With half the compute efficiency: 2.147e9 / 9.75e12 = 220.2 us.
// HALF: perf.gemm {k = 1024 : i64, m = 1024 : i64, n = 1024 : i64, perf.cost_model = "roofline", perf.latency_us = 220.2{{[0-9]+}} : f64}
// BAD: error: unknown kernel cost model 'oracle'
// EFF: error: compute-efficiency and memory-efficiency must be in (0, 1]
perf.graph @g attributes {target = #perf.gpu<"A100">} {
  perf.op "mm" : () -> () {
    perf.gemm {m = 1024, n = 1024, k = 1024}
    perf.gemm {m = 1024, n = 1024, k = 1024, dtype = bf16, tensor_cores}
    perf.memcpy {bytes = 32000000, kind = #perf.copy<h2d>}
  }
}
