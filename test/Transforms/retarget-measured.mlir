// RUN: perf-opt %s --perf-kernel-cost | FileCheck %s --check-prefix=SAME
// RUN: perf-opt %s --perf-device=a100-pcie --perf-kernel-cost | FileCheck %s --check-prefix=RATIO
// RUN: perf-opt %s --perf-device=a100-pcie --perf-kernel-cost=retarget=wave | FileCheck %s --check-prefix=WAVE
// RUN: perf-opt %s --perf-set-target=device=a100-pcie --perf-kernel-cost --perf-set-target=device=v100-pcie --perf-kernel-cost | FileCheck %s --check-prefix=BACK
// RUN: perf-opt %s --perf-device=a100-pcie --estimate=models=roofline | FileCheck %s --check-prefix=REPORT
// RUN: rm -rf %t && mkdir -p %t/shrunk %t/bad
// RUN: echo '{"residual_weight": {"elementwise": 0.5}}' > %t/shrunk/retarget.json
// RUN: perf-opt %s --perf-device=a100-pcie --perf-kernel-cost="retarget=shrunk ml-dir=%t/shrunk" | FileCheck %s --check-prefix=SHRUNK
// RUN: perf-opt %s --perf-device=a100-pcie --perf-kernel-cost="retarget=shrunk" | FileCheck %s --check-prefix=NOWEIGHTS
// RUN: echo '{"residual_weight": {"elementwise": 1.5}}' > %t/bad/retarget.json
// RUN: not perf-opt %s --perf-device=a100-pcie --perf-kernel-cost="retarget=shrunk ml-dir=%t/bad" 2>&1 | FileCheck %s --check-prefix=BADW
// RUN: echo '{"residual_weight": {"elementwize": 0.5}}' > %t/bad/retarget.json
// RUN: not perf-opt %s --perf-device=a100-pcie --perf-kernel-cost="retarget=shrunk ml-dir=%t/bad" 2>&1 | FileCheck %s --check-prefix=BADKIND
// RUN: not perf-opt %s --perf-kernel-cost=retarget=habitat 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not perf-opt %s --estimate=retarget=habitat 2>&1 | FileCheck %s --check-prefix=BADFLAG

// A step measured on a V100-PCIe: on its own GPU the measured latencies
// stand.
// SAME: perf.elementwise {{.*}}perf.cost_model = "measured", perf.latency_us = 2.000000e+01 : f64}
// SAME: perf.kernel {{.*}}perf.cost_model = "measured", perf.latency_us = 7.000000e+00 : f64}
// SAME-NOT: perf.retarget

// Moved to an A100-PCIe with the roofline's ratio: the add moves 12 MB,
// 12e6 / (900e9 x 0.8) = 16.667 us on the V100 and 12e6 / (1555e9 x 0.8)
// = 9.6463 us on the A100, so 20 us x 9.6463 / 16.667 = 11.5756 us. The
// opaque kernel (no FLOPs, no bytes) has no model: it moves as a
// memory-bound kernel, with the bandwidth, 7 us x 900 / 1555 = 4.0514 us;
// the unmeasured GEMM is priced on the A100 as any kernel.
// RATIO: perf.graph @step attributes {perf.measured_on = #perf.gpu<"V100-PCIe-32GB"{{.*}}>, perf.retarget = {from = "V100-PCIe-32GB", kept = 0 : i64, kept_kinds = {}, method = "ratio", moved = 2 : i64}
// RATIO: perf.elementwise {{.*}}perf.cost_model = "measured*roofline", perf.latency_us = 11.57556{{[0-9]*}} : f64, perf.measured_latency_us = 2.000000e+01 : f64}
// RATIO: perf.kernel {{.*}}perf.cost_model = "measured*wave", perf.latency_us = 4.05144{{[0-9]*}} : f64, perf.measured_latency_us = 7.000000e+00 : f64}
// RATIO: perf.gemm {{.*}}perf.cost_model = "roofline"

// Shrunk with w = 0.5 for element-wise kernels: the A100's price times the
// square root of measured over the V100's price. The add moves exactly
// 3 x 4 x 2^20 bytes (17.4763 us on the V100, 10.1149 us on the A100; the
// ratio above is the same with the rounded 12 MB), so 10.1149 x
// (20 / 17.4763)^0.5 = 10.8206 us. Without a retarget.json (no model
// folder) every w is 1: the ratio's 11.5756 us.
// SHRUNK: perf.retarget = {from = "V100-PCIe-32GB", kept = 0 : i64, kept_kinds = {}, method = "shrunk", moved = 2 : i64}
// SHRUNK: perf.elementwise {{.*}}perf.cost_model = "measured*roofline", perf.latency_us = 10.8206{{[0-9]*}} : f64, perf.measured_latency_us = 2.000000e+01 : f64}
// NOWEIGHTS: perf.elementwise {{.*}}perf.cost_model = "measured*roofline", perf.latency_us = 11.57556{{[0-9]*}} : f64
// BADW: error: {{.*}}bad{{/|\\}}retarget.json: residual_weight.elementwise: must be a number in [0, 1]
// BADKIND: error: {{.*}}bad{{/|\\}}retarget.json: residual_weight.elementwize: not a kernel kind

// Habitat's wave scaling: gamma = 1 - 0.5 x (1/12) / (19.5e12 / 1555e9)
// = 0.99668, factor (900/1555)^gamma x ((80 x 1380) / (108 x 1410))^(1 -
// gamma) = 0.57921: 11.5842 us.
// WAVE: perf.elementwise {{.*}}perf.cost_model = "measured*wave", perf.latency_us = 11.58422{{[0-9]*}} : f64, perf.measured_latency_us = 2.000000e+01 : f64}

// Back on the V100 the measured 20 us returns.
// BACK: perf.elementwise {{.*}}perf.cost_model = "measured", perf.latency_us = 2.000000e+01 : f64}
// BACK-NOT: perf.measured_latency_us
// BACK-NOT: perf.retarget =

// REPORT: priced by: measured*roofline=1 measured*wave=1 roofline=1
// REPORT-NEXT: measured on V100-PCIe-32GB: 2 kernels moved to A100-PCIe-40GB (ratio), 0 with no model kept as measured

// BAD: error: retarget must be ratio, shrunk or wave, got 'habitat'
// BADFLAG: error: retarget must be ratio, shrunk or wave, got 'habitat'
perf.graph @step attributes {target = #perf.gpu<"V100-PCIe-32GB">, perf.measured_on = #perf.gpu<"V100-PCIe-32GB">} {
  perf.op "aten::add" : () -> () {
    perf.elementwise {dtype = f32, elements = 1048576 : i64, fn = "add", inputs = 2 : i64, perf.cost_model = "measured", perf.latency_us = 20.0 : f64}
  }
  perf.op "AddBackward0" : () -> () {
    perf.kernel {bytes = 0.0 : f64, flops = 0.0 : f64, perf.cost_model = "measured", perf.latency_us = 7.0 : f64}
  }
  perf.op "aten::mm" : () -> () {
    perf.gemm {m = 64, n = 64, k = 64}
  }
}
