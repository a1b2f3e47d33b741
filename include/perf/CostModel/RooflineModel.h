//===- RooflineModel.h - max(FLOPs/peak, bytes/bandwidth) -------*- C++ -*-===//

#ifndef PERF_COSTMODEL_ROOFLINEMODEL_H
#define PERF_COSTMODEL_ROOFLINEMODEL_H

#include "perf/CostModel/KernelCostModel.h"

namespace perf {

/// Prices any kernel as max(FLOPs / (peak * computeEfficiency),
/// bytes / (bandwidth * memoryEfficiency)). Copies between host and device
/// use the PCIe bandwidth. It always answers, so it ends every stack.
class RooflineModel : public KernelCostModel {
public:
  RooflineModel(double computeEfficiency, double memoryEfficiency)
      : computeEfficiency(computeEfficiency),
        memoryEfficiency(memoryEfficiency) {}
  llvm::StringRef name() const override { return "roofline"; }
  std::optional<KernelCost> estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const override;

private:
  double computeEfficiency;
  double memoryEfficiency;
};

} // namespace perf

#endif // PERF_COSTMODEL_ROOFLINEMODEL_H
