// RUN: perf-opt %s --perf-device=a100-pcie --estimate="models=roofline timeline=%t.json" > /dev/null
// RUN: FileCheck %s < %t.json

// A kernel measured on a V100-PCIe (20 us, started 5 us into the measured
// iteration) moved to an A100-PCIe: the prediction is the roofline's ratio,
// 20 x 9.6463 / 16.667 = 11.5756 us (test/Transforms/retarget-measured.mlir);
// the measured track keeps what the trace saw, 20 us at 5 us (bytes: three
// 4 MiB tensors; one FLOP per element). Host: T1 8,
// T2 10, the kernel ready half-way through its 10 us launch, at 23 us.
// CHECK: {"args":{"T4_us":10,"bytes":12582912,"flops":1048576,"kind":"elementwise","latency_us":11.5755{{[0-9]*}},"model":"measured*roofline"},"cat":"kernel","dur":11.5755{{[0-9]*}},"name":"aten::add elementwise","ph":"X","pid":0,"tid":1,"ts":23},
// CHECK: {"cat":"measured","dur":20,"name":"aten::add elementwise","ph":"X","pid":0,"tid":1000,"ts":5},
perf.graph @step attributes {target = #perf.gpu<"V100-PCIe-32GB">, perf.measured_on = #perf.gpu<"V100-PCIe-32GB">} {
  perf.op "aten::add" : () -> () {
    perf.elementwise {dtype = f32, elements = 1048576 : i64, fn = "add", inputs = 2 : i64, perf.cost_model = "measured", perf.latency_us = 20.0 : f64, perf.measured_start_us = 5.0 : f64}
  }
}
