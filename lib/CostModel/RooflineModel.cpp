//===- RooflineModel.cpp --------------------------------------------------===//

#include "perf/CostModel/RooflineModel.h"
#include <algorithm>

using namespace perf;

std::optional<KernelCost> RooflineModel::estimate(const KernelDesc &kernel,
                                                  const GpuSpec &gpu) const {
  double flops = kernel.totalFlops();
  double bytes = kernel.totalBytes();
  double bandwidth = gpu.memBandwidth;
  if (kernel.kind == KernelKind::Memcpy &&
      kernel.copyKind != MemcpyKind::DeviceToDevice)
    bandwidth = gpu.pcieBandwidth > 0 ? gpu.pcieBandwidth : gpu.memBandwidth;
  double peak = gpu.peakFlops(kernel.dtype, kernel.tensorCores);
  double computeS = peak > 0 ? flops / (peak * computeEfficiency) : 0;
  double memoryS = bandwidth > 0 ? bytes / (bandwidth * memoryEfficiency) : 0;
  KernelCost cost;
  cost.latencyUs = std::max(computeS, memoryS) * 1e6;
  cost.model = "roofline";
  cost.computeBound = computeS > memoryS;
  return cost;
}
