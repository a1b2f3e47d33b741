//===- MemoryAnalysis.cpp - Device memory of one step ---------------------===//

#include "perf/Transforms/MemoryAnalysis.h"
#include "perf/Interfaces/KernelOpInterface.h"
#include "perf/Support/DType.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <algorithm>
#include <map>
#include <set>

using namespace perf;
using namespace mlir;

namespace {

/// State tensors an optimizer keeps per weight.
int64_t optimizerStatesPerWeight(StringRef algorithm) {
  return algorithm == "adam" || algorithm == "adamw" ? 2 : 1;
}

/// The device a pipeline send delivers to (the second device of its group).
std::optional<int64_t> sendDestination(FrameworkOp op) {
  if (op.getOpName() != "pp::send")
    return std::nullopt;
  if (Block *body = op.getBodyBlockOrNull())
    for (Operation &k : *body)
      if (auto collective = dyn_cast<CollectiveOpInterface>(&k)) {
        ArrayRef<int64_t> group = collective.getGroupIds();
        if (group.size() == 2)
          return group[1];
      }
  return std::nullopt;
}

/// Whether an op's results are its first operands written in place: views
/// (an op without device work), in-place ATen ops (`add_`), and collectives
/// other than a pipeline send (NCCL reduces into the buffer it reads).
bool writesInPlace(FrameworkOp op) {
  if (op->getNumOperands() == 0)
    return false;
  if (!op.getBodyBlockOrNull())
    return true;
  if (op.getOpName().ends_with("_"))
    return true;
  for (Operation &k : *op.getBodyBlockOrNull())
    if (isa<CollectiveOpInterface>(&k))
      return op.getOpName() != "pp::send";
  return false;
}

int64_t microbatchOf(Operation *op) {
  if (auto a = op->getAttrOfType<IntegerAttr>(kMicrobatchAttr))
    return a.getInt();
  return 0;
}

} // namespace

MemoryAnalysis::MemoryAnalysis(Operation *op) {
  auto graph = dyn_cast<GraphOp>(op);
  if (!graph)
    return;
  if (GpuAttr gpu = graph.getGpuTarget())
    capacity_ = gpu.getSpec().memBytes;
  int64_t tp = 1;
  if (auto a = graph->getAttrOfType<IntegerAttr>(kTensorParallelAttr))
    tp = std::max<int64_t>(1, a.getInt());
  int64_t replicas = 1;
  if (auto a = graph->getAttrOfType<IntegerAttr>(kDataParallelAttr))
    replicas = std::max<int64_t>(1, a.getInt());
  // ZeRO shards gradients from stage 2 and weights at stage 3 (the
  // optimizer ops already update 1/N of the elements from stage 1).
  int64_t zeroStage = 0;
  if (auto a = graph->getAttrOfType<IntegerAttr>(kZeroAttr))
    zeroStage = a.getInt();
  const double gradientShare = zeroStage >= 2 ? 1.0 / double(replicas) : 1.0;
  const double weightShare = zeroStage >= 3 ? 1.0 / double(replicas) : 1.0;

  std::map<int64_t, DeviceMemory> byDevice;
  auto deviceMemory = [&](int64_t device) -> DeviceMemory & {
    DeviceMemory &m = byDevice[device];
    m.device = device;
    return m;
  };

  // A tensor's storage: its size and device, and the last op (by launch
  // index) that reads it through any alias.
  struct Storage {
    double bytes = 0;
    int64_t device = 0;
    size_t lastUse = 0;
  };
  // Tensors are values of the unrolled graph: each copy of a repeated op
  // allocates its own.
  llvm::DenseMap<ValueCopy, unsigned> storageOf;
  std::vector<Storage> storages;
  llvm::DenseSet<ValueCopy> split;
  SmallVector<FrameworkOp> ops;
  SmallVector<CopyId> opCopies;
  UnrolledWalk unrolled;
  (void)unrolled.run(graph, [&](Operation *o, CopyId copy) {
    if (auto fw = dyn_cast<FrameworkOp>(o)) {
      ops.push_back(fw);
      opCopies.push_back(copy);
    }
    return success();
  });

  // What each op allocates, in launch order: its own results (unless it
  // writes in place) and, for a backward op, its weight gradient, which
  // stays until the step ends.
  std::vector<SmallVector<unsigned>> allocated(ops.size());
  std::vector<double> persistent(ops.size(), 0);
  // Devices some of whose ops declare their weights (perf.params).
  std::set<int64_t> declared;
  std::map<int64_t, double> fullGradients, zeroBucket;
  for (auto [index, fw] : llvm::enumerate(ops)) {
    CopyId copy = opCopies[index];
    auto valueOf = [&](Value v) { return unrolled.resolve(v, copy); };
    int64_t device = fw.getDevice();
    bool forward = isForwardOp(fw);
    bool optimizer = isOptimizerOp(fw);
    // Micro-batch clones and recomputed ops read the weights again.
    bool firstCopy = microbatchOf(fw) <= 0 && !fw->hasAttr(kRecomputedAttr);
    // Weights live on the device of the forward op that reads them.
    if (forward && firstCopy)
      if (std::optional<int64_t> params = declaredParameters(fw)) {
        declared.insert(device);
        deviceMemory(device).parameters += double(*params) *
                                           parameterElementBytes(fw) /
                                           double(tp) * weightShare;
      }
    if (optimizer)
      for (Operation &k : *fw.getBodyBlockOrNull())
        if (auto update = dyn_cast<OptimizerOp>(k))
          deviceMemory(device).optimizerStates +=
              double(update.getElements()) *
              double(optimizerStatesPerWeight(update.getAlgorithm())) *
              dtypeBytes(update.getKernelDesc().dtype);
    int64_t gradient = forward || optimizer ? 0 : gradientBytes(fw);
    if (gradient > 0 && firstCopy) {
      deviceMemory(device).gradients += double(gradient) * gradientShare;
      fullGradients[device] += double(gradient);
      persistent[index] = double(gradient) * gradientShare;
    }
    // ZeRO's reduce buckets: one, the largest, is in flight at a time.
    if (fw.getOpName() == kZeroReduceScatterOpName)
      for (Operation &k : *fw.getBodyBlockOrNull())
        if (auto rs = dyn_cast<ReduceScatterOp>(k))
          zeroBucket[device] =
              std::max(zeroBucket[device], double(rs.getBytes()));

    bool inPlace = writesInPlace(fw);
    bool isSplit =
        tp > 1 && (fw->hasAttr(kTensorSplitAttr) ||
                   (!forward && llvm::any_of(fw->getOperands(), [&](Value v) {
                     return split.contains(valueOf(v));
                   })));
    int64_t resultDevice = sendDestination(fw).value_or(device);
    for (auto [i, result] : llvm::enumerate(fw->getResults())) {
      if (isSplit)
        split.insert({result, copy});
      if (inPlace && i < fw->getNumOperands()) {
        auto it = storageOf.find(valueOf(fw->getOperand(i)));
        if (it != storageOf.end())
          storageOf[{result, copy}] = it->second;
        continue;
      }
      // The weight gradient is the persistent allocation above.
      double bytes = double(tensorBytes(result.getType()));
      if (gradient > 0 && i + 1 == fw->getNumResults())
        bytes = 0;
      if (isSplit)
        bytes /= double(tp);
      storageOf[{result, copy}] = storages.size();
      allocated[index].push_back(storages.size());
      storages.push_back({bytes, resultDevice, index});
    }
    for (Value operand : fw->getOperands()) {
      auto it = storageOf.find(valueOf(operand));
      if (it != storageOf.end())
        storages[it->second].lastUse =
            std::max(storages[it->second].lastUse, index);
    }
  }

  // Walk the launch order: an op's inputs and outputs are alive while it
  // runs; storages whose last reader it is are freed after it.
  std::vector<SmallVector<unsigned>> freedAfter(ops.size());
  for (auto [id, s] : llvm::enumerate(storages))
    freedAfter[s.lastUse].push_back(id);
  std::map<int64_t, double> live;
  // A device's live bytes only grow where an op allocates: the peak is
  // checked there.
  auto allocate = [&](int64_t device, double bytes) {
    double &now = live[device];
    now += bytes;
    DeviceMemory &m = deviceMemory(device);
    m.activationPeak = std::max(m.activationPeak, now);
  };
  for (size_t index = 0; index < ops.size(); ++index) {
    allocate(ops[index].getDevice(), persistent[index]);
    for (unsigned id : allocated[index])
      allocate(storages[id].device, storages[id].bytes);
    for (unsigned id : freedAfter[index])
      live[storages[id].device] -= storages[id].bytes;
  }
  for (auto &[d, m] : byDevice) {
    // Ops that do not declare their weights (traces, hand-written graphs)
    // still write a gradient of each: as many bytes of weights.
    if (!declared.count(d))
      m.parameters = fullGradients[d] * weightShare;
    if (zeroStage > 0)
      m.gradientBuckets = zeroBucket[d];
    else if (replicas > 1)
      m.gradientBuckets = m.gradients;
    devices_.push_back(m);
  }
}

const DeviceMemory &MemoryAnalysis::largest() const {
  static const DeviceMemory none;
  if (devices_.empty())
    return none;
  return *std::max_element(devices_.begin(), devices_.end(),
                           [](const DeviceMemory &a, const DeviceMemory &b) {
                             return a.peak() < b.peak();
                           });
}

bool MemoryAnalysis::outOfMemory() const {
  return capacity_ > 0 && largest().peak() > capacity_;
}
