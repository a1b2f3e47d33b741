//===- MemoryAnalysis.cpp - Device memory of one step ---------------------===//

#include "perf/Transforms/MemoryAnalysis.h"
#include "perf/Support/DType.h"
#include "perf/Support/HugePages.h"
#include "perf/Support/TupleKeyInfo.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <algorithm>
#include <limits>
#include <map>
#include <set>

using namespace perf;
using namespace mlir;

namespace {

/// The element type a kernel runs in: its dtype, f32 when it gives none.
DType kernelDType(WorkAttr kernel) {
  Type dtype = kernel.getDtype();
  return dtype ? getDType(dtype) : DType::F32;
}

/// State tensors an optimizer update keeps per weight: Adam's two moments
/// or SGD's momentum, and the FP32 master copy of mixed precision.
int64_t optimizerStatesPerWeight(OptimizerWork update) {
  bool adam = update.getAlgorithm() == OptimizerAlgorithm::Adam;
  return (adam ? 2 : 1) + (update.getMasterWeights() ? 1 : 0);
}

/// The embedding tables the forward lookups of `op` read, in bytes: the
/// weights of an op that does not declare them (a table's gradient is sparse
/// or written by a backward op without a wgrad pass, so the gradient-sized
/// fallback below never sees it).
double lookupTableBytes(FrameworkOp op) {
  double bytes = 0;
  for (WorkAttr work : op.getWorkList())
    if (auto lookup = dyn_cast<EmbeddingBagWork>(work);
        lookup && lookup.getPass() == TrainingPass::Fwd)
      bytes += double(lookup.getTables()) * double(lookup.getRows()) *
               double(lookup.getDim()) * dtypeBytes(kernelDType(lookup));
  return bytes;
}

/// The device a pipeline send delivers to (the second device of its group).
std::optional<int64_t> sendDestination(FrameworkOp op) {
  if (op.getOpName() != "pp::send")
    return std::nullopt;
  for (WorkAttr work : op.getWorkList())
    if (work.isCollective()) {
      ArrayRef<int64_t> group = work.getGroupIds();
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
  if (!op.hasWork())
    return true;
  if (op.getOpName().ends_with("_"))
    return true;
  for (WorkAttr work : op.getWorkList())
    if (work.isCollective())
      return op.getOpName() != "pp::send";
  return false;
}

int64_t microbatchOf(Operation *op) {
  if (auto a = getDiscardable<IntegerAttr>(op, kMicrobatchAttr))
    return a.getInt();
  return 0;
}

} // namespace

MemoryAnalysis::MemoryAnalysis(Operation *op) {
  if (auto graph = dyn_cast<GraphOp>(op))
    *this = MemoryAnalysis(graph, UnrolledWalk::unrolledSize(graph));
}

MemoryAnalysis::MemoryAnalysis(Operation *op, const UnrolledWalk::Size &size) {
  auto graph = dyn_cast<GraphOp>(op);
  if (!graph)
    return;
  if (GpuAttr gpu = graph.getGpuTarget())
    capacity_ = gpu.getSpec().memBytes;
  const int64_t tp = layoutDegree(graph, kTensorParallelAttr);
  const int64_t replicas = layoutDegree(graph, kDataParallelAttr);
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
  // index) that reads it through any alias. 16 bytes: a step holds about one
  // a kernel, millions (devices are below max-devices, launch indices below
  // max-unrolled-ops).
  struct Storage {
    double bytes = 0;
    int32_t device = 0;
    uint32_t lastUse = 0;
  };
  // Tensors are the results of the unrolled graph's host ops (each copy of
  // a repeated op allocates its own): slot slotBase[i] + r is result r of
  // the i-th host op UnrolledWalk visits. Each framework op is accounted for
  // when the walk reaches it, while the producers it reads were visited a
  // moment ago (looking them up after the walk missed the cache on nearly
  // every operand of a large step).
  std::vector<size_t> slotBase;
  reserveHuge(slotBase, size.hostOps);
  constexpr unsigned kNoStorage = ~0u;
  // Per slot (about one per host op: reserved for that, grown past it).
  std::vector<unsigned> storageOf;
  reserveHuge(storageOf, size.hostOps);
  std::vector<char> split;
  reserveHuge(split, size.hostOps);
  std::vector<Storage> storages;
  reserveHuge(storages, size.hostOps);
  // A storage read until the step's end (a cache kept for the next step):
  // its last use is the last framework op, known once the walk is done.
  constexpr uint32_t kStepEnd = std::numeric_limits<uint32_t>::max();

  // What an op's copies have in common, read from the IR once per op.
  struct OpFacts {
    int64_t device = 0;
    bool forward = false, optimizer = false;
    /// Micro-batch clones and recomputed ops read the weights again.
    bool firstCopy = true;
    std::optional<int64_t> params;
    double paramElementBytes = 0, optimizerStates = 0, zeroBucket = 0;
    /// Tables of the op's lookups when it declares no weights.
    double tableBytes = 0;
    int64_t gradient = 0;
    bool inPlace = false, tensorSplit = false;
    /// A KV cache update: its results stay to the step's end, and the
    /// cache it extends is held from the step's start until it runs.
    bool kvCache = false;
    double pastCacheBytes = 0;
    int64_t resultDevice = 0;
    SmallVector<double, 2> resultBytes;
  };
  auto readFacts = [&](FrameworkOp fw) {
    OpFacts f;
    f.device = fw.getDevice();
    f.forward = isForwardOp(fw);
    f.optimizer = isOptimizerOp(fw);
    f.firstCopy = microbatchOf(fw) <= 0 && !hasDiscardable(fw, kRecomputedAttr);
    if (f.forward && f.firstCopy) {
      f.params = declaredParameters(fw);
      if (f.params)
        f.paramElementBytes = parameterElementBytes(fw);
      else
        f.tableBytes = lookupTableBytes(fw);
    }
    if (f.optimizer)
      for (WorkAttr work : fw.getWorkList())
        if (auto update = dyn_cast<OptimizerWork>(work))
          f.optimizerStates += double(update.getElements()) *
                               double(optimizerStatesPerWeight(update)) *
                               dtypeBytes(kernelDType(update));
    f.gradient = f.forward || f.optimizer ? 0 : gradientBytes(fw);
    // ZeRO's reduce buckets: one, the largest, is in flight at a time.
    if (fw.getOpName() == kZeroReduceScatterOpName)
      for (WorkAttr work : fw.getWorkList())
        if (work.getKind() == WorkKind::ReduceScatter)
          f.zeroBucket =
              std::max(f.zeroBucket, double(work.getCollectiveBytes()));
    f.inPlace = writesInPlace(fw);
    f.tensorSplit = hasDiscardable(fw, kTensorSplitAttr);
    f.resultDevice = sendDestination(fw).value_or(f.device);
    for (Type t : fw->getResultTypes())
      f.resultBytes.push_back(double(tensorBytes(t)));
    if (auto past = getDiscardable<IntegerAttr>(fw, kKvCacheAttr)) {
      f.kvCache = true;
      f.pastCacheBytes = double(std::max<int64_t>(0, past.getInt()));
    }
    return f;
  };
  // The facts are read from an op's name, device, work list, perf.*
  // attributes, whether it has operands and its result types: ops alike in
  // these (every copy of a repeated op, and the layers of a step written
  // out) share them, read once. An op of several results is read each time.
  // (The device by its attribute: uniqued, so equal devices are one
  // pointer, and reading the integer out of it is dearer than the lookup.)
  using FactsKey = std::tuple<StringAttr, ArrayAttr, DictionaryAttr,
                              IntegerAttr, unsigned, Type>;
  llvm::DenseMap<FactsKey, OpFacts, TupleKeyInfo<FactsKey>> sharedFacts;
  // A repeat body's ops come again in every copy: their facts are found by
  // the op (a pointer's hash) after the first copy, not by the six-field key
  // (over a third of this walk's instructions on a 10k-kernel repeat).
  llvm::DenseMap<Operation *, OpFacts> bodyFacts;

  // What each framework op allocates, in launch order: its own results
  // (unless it writes in place), storages firstStorage[i] to
  // firstStorage[i + 1], and, for a backward op, its weight gradient, which
  // stays until the step ends; the device it runs on; the KV cache it
  // extends, held from the step's start and freed after it (copied into its
  // result). Few ops hold a gradient or a cache: those two are kept as
  // (launch index, bytes) for the ops that do, in launch order.
  std::vector<unsigned> firstStorage;
  reserveHuge(firstStorage, size.hostOps + 1);
  using OpBytes = std::vector<std::pair<uint32_t, double>>;
  OpBytes persistent, pastCache;
  std::vector<int32_t> opDevice;
  reserveHuge(opDevice, size.hostOps);
  std::map<int64_t, double> heldAtStart;
  // Devices some of whose ops declare their weights (perf.params).
  std::set<int64_t> declared;
  std::map<int64_t, double> fullGradients, zeroBucket, tables;
  UnrolledWalk unrolled;
  unrolled.reserve(size);
  (void)unrolled.run(graph, [&](Operation *o, CopyId copy) {
    const size_t firstSlot = storageOf.size();
    slotBase.push_back(firstSlot);
    // Most ops have one result: appended one by one, not through resize's
    // out-of-line fill.
    for (unsigned r = 0, e = o->getNumResults(); r < e; ++r) {
      storageOf.push_back(kNoStorage);
      split.push_back(0);
    }
    auto fw = dyn_cast<FrameworkOp>(o);
    if (!fw)
      return success();
    const auto index = static_cast<uint32_t>(opDevice.size());
    // The slot of the tensor an operand of this copy reads.
    // (A graph has no arguments: every operand is some host op's result.)
    auto slotOf = [&](Value v) -> size_t {
      UnrolledWalk::Producer from = *unrolled.producerOf(v, copy);
      return slotBase[from.instance] + from.result;
    };
    OpFacts read;
    const OpFacts *f = &read;
    const bool inRepeat = copy != 0;
    auto known = inRepeat ? bodyFacts.find(o) : bodyFacts.end();
    if (known != bodyFacts.end()) {
      f = &known->second;
    } else if (fw->getNumResults() <= 1) {
      auto [it, fresh] = sharedFacts.try_emplace(
          FactsKey{fw.getOpNameAttr(), fw.getWorkAttr(),
                   fw->getDiscardableAttrDictionary(), fw.getDeviceAttr(),
                   unsigned(fw->getNumOperands() > 0),
                   fw->getNumResults() ? fw->getResult(0).getType() : Type()});
      if (fresh)
        it->second = readFacts(fw);
      f = &it->second;
      if (inRepeat)
        bodyFacts.try_emplace(o, it->second);
    } else {
      read = readFacts(fw);
    }
    int64_t device = f->device;
    opDevice.push_back(static_cast<int32_t>(device));
    // Weights live on the device of the forward op that reads them.
    if (f->params) {
      declared.insert(device);
      deviceMemory(device).parameters +=
          double(*f->params) * f->paramElementBytes / double(tp) * weightShare;
    }
    // Lookups are not split by tensor parallelism (the kernel holds what
    // the device reads); ZeRO-3 shards them with every other weight.
    if (f->tableBytes > 0)
      tables[device] += f->tableBytes * weightShare;
    if (f->optimizer)
      deviceMemory(device).optimizerStates += f->optimizerStates;
    int64_t gradient = f->gradient;
    if (gradient > 0 && f->firstCopy) {
      deviceMemory(device).gradients += double(gradient) * gradientShare;
      fullGradients[device] += double(gradient);
      persistent.push_back({index, double(gradient) * gradientShare});
    }
    if (f->zeroBucket > 0)
      zeroBucket[device] = std::max(zeroBucket[device], f->zeroBucket);

    bool isSplit =
        tp > 1 &&
        (f->tensorSplit ||
         (!f->forward && llvm::any_of(fw->getOperands(), [&](Value v) {
           return split[slotOf(v)] != 0;
         })));
    firstStorage.push_back(storages.size());
    for (auto [i, bytes] : llvm::enumerate(f->resultBytes)) {
      if (isSplit)
        split[firstSlot + i] = 1;
      if (f->inPlace && i < fw->getNumOperands()) {
        unsigned id = storageOf[slotOf(fw->getOperand(i))];
        storageOf[firstSlot + i] = id;
        // A cache written in place keeps its storage to the step's end.
        if (f->kvCache && id != kNoStorage)
          storages[id].lastUse = kStepEnd;
        continue;
      }
      // The weight gradient is the persistent allocation above.
      double size = bytes;
      if (gradient > 0 && i + 1 == f->resultBytes.size())
        size = 0;
      if (isSplit)
        size /= double(tp);
      storageOf[firstSlot + i] = storages.size();
      // A cache is kept for the next step: alive to the end of this one.
      storages.push_back({size, static_cast<int32_t>(f->resultDevice),
                          f->kvCache ? kStepEnd : index});
    }
    if (f->pastCacheBytes > 0) {
      // A tensor-parallel rank caches its own heads.
      double past = f->pastCacheBytes / (isSplit ? double(tp) : 1.0);
      pastCache.push_back({index, past});
      heldAtStart[device] += past;
    }
    for (Value operand : fw->getOperands()) {
      unsigned id = storageOf[slotOf(operand)];
      if (id != kNoStorage)
        storages[id].lastUse = std::max(storages[id].lastUse, index);
    }
    return success();
  });
  const size_t numOps = opDevice.size();
  firstStorage.push_back(storages.size());
  for (Storage &s : storages)
    if (s.lastUse == kStepEnd)
      s.lastUse = static_cast<uint32_t>(numOps - 1);

  // Walk the launch order: an op's inputs and outputs are alive while it
  // runs; storages whose last reader it is are freed after it (storages
  // freedAfter[freedBegin[i]] to freedAfter[freedBegin[i + 1]] after op i).
  std::vector<unsigned> freedBegin(numOps + 1, 0), freedAfter(storages.size());
  for (const Storage &s : storages)
    ++freedBegin[s.lastUse + 1];
  for (size_t i = 0; i < numOps; ++i)
    freedBegin[i + 1] += freedBegin[i];
  {
    std::vector<unsigned> next(freedBegin.begin(), freedBegin.end() - 1);
    for (auto [id, s] : llvm::enumerate(storages))
      freedAfter[next[s.lastUse]++] = id;
  }
  // Live bytes and their peak per device, indexed by device (devices are
  // below max-devices): no map lookup per allocation and free of a step's
  // millions.
  int64_t maxDevice = 0;
  for (int32_t d : opDevice)
    maxDevice = std::max<int64_t>(maxDevice, d);
  for (const Storage &s : storages)
    maxDevice = std::max<int64_t>(maxDevice, s.device);
  for (auto &[device, bytes] : heldAtStart)
    maxDevice = std::max(maxDevice, device);
  std::vector<double> live(maxDevice + 1, 0.0), peak(maxDevice + 1, 0.0);
  std::vector<char> allocates(maxDevice + 1, 0);
  // A device's live bytes only grow where an op allocates: the peak is
  // checked there.
  auto allocate = [&](int64_t device, double bytes) {
    double &now = live[device];
    now += bytes;
    peak[device] = std::max(peak[device], now);
    allocates[device] = 1;
  };
  for (auto [device, bytes] : heldAtStart)
    allocate(device, bytes);
  // The bytes `list` holds for op `index` (0 when none), read in launch
  // order from `next`.
  auto bytesOf = [](const OpBytes &list, OpBytes::const_iterator &next,
                    size_t index) {
    return next != list.end() && next->first == index ? (next++)->second : 0.0;
  };
  OpBytes::const_iterator nextPersistent = persistent.begin();
  OpBytes::const_iterator nextPastCache = pastCache.begin();
  for (size_t index = 0; index < numOps; ++index) {
    allocate(opDevice[index], bytesOf(persistent, nextPersistent, index));
    for (unsigned id = firstStorage[index]; id < firstStorage[index + 1]; ++id)
      allocate(storages[id].device, storages[id].bytes);
    for (unsigned i = freedBegin[index]; i < freedBegin[index + 1]; ++i)
      live[storages[freedAfter[i]].device] -= storages[freedAfter[i]].bytes;
    live[opDevice[index]] -= bytesOf(pastCache, nextPastCache, index);
  }
  for (int64_t device = 0; device <= maxDevice; ++device)
    if (allocates[device]) {
      DeviceMemory &m = deviceMemory(device);
      m.activationPeak = std::max(m.activationPeak, peak[device]);
    }
  for (auto &[d, m] : byDevice) {
    // Ops that do not declare their weights (traces, hand-written graphs)
    // still write a gradient of each: as many bytes of weights.
    if (!declared.count(d))
      m.parameters = fullGradients[d] * weightShare;
    m.parameters += tables[d];
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
