//===- MemoryAnalysis.h - Device memory of one step -------------*- C++ -*-===//
//
// How much memory each device of a step holds at its peak, read from the
// graph's data flow in launch order: what lives for the whole step
// (parameters, optimizer states, data-parallel gradient buckets) plus the
// largest sum of tensors alive at once (a tensor lives from the op that
// writes it to the last op that reads it; weight gradients, once written,
// until the step ends). Training graphs keep their forward activations
// alive because their backward ops read them, so the same walk gives the
// peak of inference, training, GPipe and 1F1B schedules.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRANSFORMS_MEMORYANALYSIS_H
#define PERF_TRANSFORMS_MEMORYANALYSIS_H

#include "mlir/IR/Operation.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/ArrayRef.h"
#include <vector>

namespace perf {

/// The memory of one device, in bytes.
struct DeviceMemory {
  int64_t device = 0;
  /// Weights the device holds (its tensor-parallel shard, its pipeline
  /// stage's layers).
  double parameters = 0;
  /// Weight gradients the step writes (counted once per weight, however
  /// many micro-batches accumulate into it).
  double gradients = 0;
  /// Optimizer state: Adam's two moments, SGD's momentum, per weight.
  double optimizerStates = 0;
  /// Data parallelism's flat gradient buckets (DDP keeps one copy).
  double gradientBuckets = 0;
  /// The largest sum of tensors alive at once, weight gradients written so
  /// far included.
  double activationPeak = 0;

  /// What the device holds at its peak.
  double peak() const {
    return parameters + optimizerStates + gradientBuckets + activationPeak;
  }
};

/// Per-device memory of a perf.graph (constructible from the graph, so it
/// can be used as an MLIR analysis).
class MemoryAnalysis {
public:
  explicit MemoryAnalysis(mlir::Operation *graph);
  /// With the size of the unrolled graph already counted
  /// (UnrolledSizeAnalysis).
  MemoryAnalysis(mlir::Operation *graph, const UnrolledWalk::Size &size);

  /// Every device an op of the graph runs on, in device order.
  llvm::ArrayRef<DeviceMemory> devices() const { return devices_; }
  /// Memory of the graph's GPU in bytes; 0 when the graph has no GPU.
  double capacity() const { return capacity_; }
  /// The device with the highest peak.
  const DeviceMemory &largest() const;
  /// Whether some device's peak exceeds the GPU's memory.
  bool outOfMemory() const;

private:
  std::vector<DeviceMemory> devices_;
  double capacity_ = 0;
};

} // namespace perf

#endif // PERF_TRANSFORMS_MEMORYANALYSIS_H
