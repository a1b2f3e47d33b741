//===- PipelineParallel.cpp - --perf-pipeline-parallel --------------------===//
//
// Pipeline parallelism (GPipe, Huang et al. 2019; 1F1B, PipeDream-Flush,
// Narayanan et al. 2021): stage s of the model runs on device s, and the
// step is `microbatches` copies of the input graph (one micro-batch) in the
// order the schedule gives each stage. Tensors that cross stages travel in a
// perf.send that both stages take part in, on a stream per link direction, so
// the critical path sees every bubble and every transfer.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "perf/CostModel/RooflineModel.h"
#include "perf/Support/Limits.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include <deque>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

namespace perf {
#define GEN_PASS_DEF_PIPELINEPARALLEL
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
/// Each direction of each stage-to-stage link gets its own stream (as NCCL
/// gives each peer its own channel), so a send never queues behind a
/// transfer on another link: stream 1 + 2 min(s, t) + (t < s).
int64_t linkStream(int64_t from, int64_t to) {
  return 1 + 2 * std::min(from, to) + (to < from ? 1 : 0);
}

double opFlops(Operation *op) {
  double flops = 0;
  if (auto fw = dyn_cast<FrameworkOp>(op))
    for (WorkAttr w : fw.getWorkList())
      if (w.isKernel())
        flops += w.getFlopCount();
  return flops;
}

/// Device time of an op's kernels: their priced latency where a cost pass
/// ran, else the roofline at peak on `gpu` (memory-bound kernels such as
/// embedding lookups and element-wise ops weigh what they cost, not their
/// FLOPs).
double opTimeUs(Operation *op, const GpuSpec &gpu) {
  static const RooflineModel roofline(1.0, 1.0);
  double us = 0;
  auto fw = dyn_cast<FrameworkOp>(op);
  if (!fw)
    return us;
  for (WorkAttr w : fw.getWorkList()) {
    if (!w.isKernel())
      continue;
    if (auto priced = w.getAs<FloatAttr>(kLatencyAttr))
      us += priced.getValueAsDouble();
    else if (auto cost = roofline.estimate(w.getKernelDesc(), gpu))
      us += cost->latencyUs;
  }
  return us;
}

/// Cuts `ops` into `n` contiguous stages of about equal `weight` (by op
/// count when every weight is zero); returns the stage of each op.
SmallVector<int64_t> cutStages(ArrayRef<Operation *> ops, int64_t n,
                               llvm::function_ref<double(Operation *)> weight) {
  SmallVector<int64_t> stage(ops.size(), 0);
  double total = 0;
  for (Operation *op : ops)
    total += weight(op);
  double before = 0;
  int64_t prev = 0;
  const int64_t m = static_cast<int64_t>(ops.size());
  for (int64_t i = 0; i < m; ++i) {
    double w = total > 0 ? weight(ops[i]) : 1.0;
    double all = total > 0 ? total : double(m);
    double mid = before + w / 2;
    int64_t s = std::min<int64_t>(n - 1, int64_t(mid * n / all));
    s = std::max(s, prev);
    // With at least one op per stage, no stage is left empty: an op heavier
    // than a stage's share moves the cut on by one stage, not past several,
    // and the last ops fill the stages still empty.
    if (m >= n)
      s = std::max(std::min(s, i == 0 ? int64_t(0) : prev + 1), n - (m - i));
    stage[i] = prev = s;
    before += w;
  }
  return stage;
}

/// One forward or backward pass of one model chunk over one micro-batch.
struct Task {
  bool forward;
  int64_t microbatch;
  /// The chunk of the model (0 .. devices x chunks - 1); chunk c runs on
  /// device c mod devices.
  int64_t chunk;
};

/// Builds one graph's pipeline: the input graph (one micro-batch) cut into
/// n x v model chunks, chunk c on stage c mod n, and copied once per
/// micro-batch in the schedule's order, with a send wherever a tensor
/// crosses stages. Each step is a method, called in order by the pass.
class PipelineBuild {
public:
  PipelineBuild(GraphOp graph, int64_t n, int64_t m, int64_t v)
      : graph(graph), b(graph.getContext()), n(n), m(m), v(v), numChunks(n * v),
        maps(m) {}

  /// Sorts the graph's ops into forward, backward and the optimizer (the
  /// tail) and cuts the forward ops into chunks of about equal device time
  /// (`byTime`, where the graph has a GPU) or FLOPs. A backward op runs in
  /// the chunk of its forward op (perf.autograd_pair). False: nothing to
  /// pipeline.
  bool partition(bool byTime) {
    for (Operation &op : graph.getBodyBlock()) {
      all.push_back(&op);
      auto fw = dyn_cast<FrameworkOp>(op);
      if (!fw)
        continue; // Syncs of the single-device graph no longer apply.
      if (isOptimizerOp(fw))
        tail.push_back(fw);
      else if (isForwardOp(fw) && bwd.empty())
        fwd.push_back(fw);
      else
        bwd.push_back(fw);
    }
    if (n == 1 || fwd.empty())
      return false;
    std::function<double(Operation *)> weight = opFlops;
    if (byTime)
      if (GpuAttr gpu = graph.getGpuTarget()) {
        GpuSpec spec = gpu.getSpec();
        weight = [spec](Operation *op) { return opTimeUs(op, spec); };
      }
    llvm::DenseMap<int64_t, int64_t> chunkOfPair;
    SmallVector<int64_t> fs = cutStages(fwd, numChunks, weight);
    for (size_t i = 0; i < fwd.size(); ++i) {
      chunkOf[fwd[i]] = fs[i];
      if (std::optional<int64_t> pair = autogradPairOf(fwd[i]))
        chunkOfPair[*pair] = fs[i];
    }
    // A backward op without a pair (the collective after a split layer's
    // backward, a hand-written op) runs with the backward op before it,
    // whose result it reads; a graph without pairs is cut like the forward.
    bool paired = llvm::any_of(
        bwd, [](Operation *op) { return autogradPairOf(op).has_value(); });
    if (!paired) {
      SmallVector<Operation *> reversed(bwd.rbegin(), bwd.rend());
      SmallVector<int64_t> bs = cutStages(reversed, numChunks, weight);
      for (size_t i = 0; i < reversed.size(); ++i)
        chunkOf[reversed[i]] = bs[i];
    } else {
      int64_t chunk = numChunks - 1;
      for (Operation *op : bwd) {
        std::optional<int64_t> pair = autogradPairOf(op);
        auto it = pair ? chunkOfPair.find(*pair) : chunkOfPair.end();
        if (it != chunkOfPair.end())
          chunk = it->second;
        chunkOf[op] = chunk;
      }
    }
    fwdChunk.resize(numChunks);
    bwdChunk.resize(numChunks);
    for (Operation *op : fwd)
      fwdChunk[chunkOf[op]].push_back(op);
    for (Operation *op : bwd)
      bwdChunk[chunkOf[op]].push_back(op);
    b.setInsertionPointToEnd(&graph.getBodyBlock());
    return true;
  }

  /// After tensor parallelism a stage is a TP group of `tp` consecutive
  /// devices, device 0's replica standing for it: stage s runs on device
  /// s x spacing (the stride, else tp) and its TP collectives move to that
  /// group. After expert parallelism over P devices (and TP over its
  /// experts as over the rest), a stage's experts are spread over P of its
  /// data-parallel replicas, which --perf-data-parallel places
  /// `replicaStep` apart: the all_to_alls of the stage at device d span d,
  /// d + replicaStep, ... (P of them).
  LogicalResult placeStages(int64_t stride) {
    tp = layoutDegree(graph, kTensorParallelAttr);
    spacing = stride > 0 ? stride : tp;
    if (spacing < tp)
      return graph.emitError("--perf-pipeline-parallel: stride=")
             << spacing << " puts stage 1 inside stage 0's tensor-parallel "
             << "group of " << tp << " devices; give at least " << tp;
    if (!withinLimit((n - 1) * spacing, kMaxDevices))
      return graph.emitError("--perf-pipeline-parallel: ") << limitExceeded(
                 "the last stage's device id", (n - 1) * spacing, kMaxDevices);
    const int64_t expertDevices = layoutDegree(graph, kExpertParallelAttr);
    replicaStep = defaultReplicaStep(n, spacing, tp);
    if (expertDevices > 1 && spacing > tp && expertDevices * tp > spacing)
      return graph.emitError("--perf-pipeline-parallel: stride=")
             << spacing << " leaves room for " << spacing / tp
             << " replicas of a stage, fewer than the " << expertDevices
             << " devices its experts are spread over (perf.expert_parallel)";
    if (expertDevices > 1 &&
        !withinLimit((n - 1) * spacing + (expertDevices - 1) * replicaStep,
                     kMaxDevices))
      return graph.emitError("--perf-pipeline-parallel: ") << limitExceeded(
                 "the last expert device's id",
                 (n - 1) * spacing + (expertDevices - 1) * replicaStep,
                 kMaxDevices);
    return success();
  }

  /// Interleaves the stages' task lists (`order`) into one launch order in
  /// which every task comes after what it reads.
  LogicalResult emitSchedule(SmallVector<std::deque<Task>> order) {
    SmallVector<SmallVector<bool>> fwdDone(numChunks,
                                           SmallVector<bool>(m, false)),
        bwdDone(numChunks, SmallVector<bool>(m, false));
    const int64_t last = numChunks - 1;
    size_t remaining = 2 * size_t(numChunks) * size_t(m);
    while (remaining > 0) {
      bool progress = false;
      for (int64_t s = 0; s < n; ++s) {
        while (!order[s].empty()) {
          Task t = order[s].front();
          int64_t c = t.chunk;
          bool ready = t.forward
                           ? (c == 0 || fwdDone[c - 1][t.microbatch])
                           : (fwdDone[last][t.microbatch] &&
                              (c == last || bwdDone[c + 1][t.microbatch]));
          if (!ready)
            break;
          order[s].pop_front();
          emitChunk(t.forward ? fwdChunk[c] : bwdChunk[c], c, t.microbatch);
          (t.forward ? fwdDone : bwdDone)[c][t.microbatch] = true;
          --remaining;
          progress = true;
        }
      }
      if (!progress)
        return graph.emitError("--perf-pipeline-parallel: schedule deadlock");
    }
    return success();
  }

  /// Ops after the backward pass (the optimizer) run once per step on every
  /// stage, over that stage's share of the parameters (the weights its
  /// forward ops declare; an even share where none declare any), once the
  /// stage's streams have drained.
  void emitOptimizerSteps() {
    SmallVector<double> stageParams(n, 0);
    for (int64_t c = 0; c < numChunks; ++c)
      for (Operation *op : fwdChunk[c])
        stageParams[stageOfChunk(c)] +=
            double(declaredParameters(cast<FrameworkOp>(op)).value_or(0));
    const double totalParams =
        std::accumulate(stageParams.begin(), stageParams.end(), 0.0);
    auto stageShare = [&](int64_t elements, int64_t stage) -> int64_t {
      if (totalParams <= 0)
        return (elements + n - 1) / n;
      return std::llround(double(elements) * stageParams[stage] / totalParams);
    };
    for (int64_t stage = 0; stage < n; ++stage) {
      if (tail.empty())
        break;
      SyncOp::create(b, graph.getLoc(), b.getI64IntegerAttr(deviceOf(stage)),
                     IntegerAttr());
      for (Operation *op : tail) {
        auto fw = cast<FrameworkOp>(op);
        auto clone = FrameworkOp::create(b, fw.getLoc(), fw->getResultTypes(),
                                         fw.getOpNameAttr(), ValueRange{},
                                         b.getI64IntegerAttr(stage));
        clone.setWorkList(fw.getWorkList());
        shareOptimizerUpdates(clone, [&](int64_t elements) {
          return stageShare(elements, stage);
        });
        place(clone, stage);
        clone->setAttr(kStageAttr, b.getI64IntegerAttr(stage));
      }
    }
  }

  /// Erases the single-micro-batch graph and records the layout.
  void finish(StringRef schedule) {
    for (Operation *op : llvm::reverse(all)) {
      op->dropAllUses();
      op->erase();
    }
    graph->setAttr(
        kPipelineParallelAttr,
        b.getDictionaryAttr(
            {b.getNamedAttr("stages", b.getI64IntegerAttr(n)),
             b.getNamedAttr("microbatches", b.getI64IntegerAttr(m)),
             b.getNamedAttr("schedule", b.getStringAttr(schedule)),
             b.getNamedAttr("chunks", b.getI64IntegerAttr(v)),
             b.getNamedAttr("stride", b.getI64IntegerAttr(spacing)),
             b.getNamedAttr("sends", b.getI64IntegerAttr(numSends))}));
  }

private:
  /// Chunk c runs on stage c mod n, which is device stage x spacing.
  int64_t stageOfChunk(int64_t chunk) const { return chunk % n; }
  int64_t deviceOf(int64_t chunk) const {
    return stageOfChunk(chunk) * spacing;
  }

  /// Whether a value made by chunk `from` must travel to chunk `to`: it
  /// does between devices; chunks of one device share its memory.
  bool crosses(int64_t from, int64_t to) const {
    return stageOfChunk(from) != stageOfChunk(to);
  }

  /// Moves a copy to its chunk's device, and its collectives' groups with
  /// it: a TP group to the stage's, an expert group's member r (device 0's
  /// replica r, device r x tp after TP) to the stage's replica r.
  void place(Operation *clone, int64_t chunk) {
    const int64_t device = deviceOf(chunk);
    auto fw = dyn_cast<FrameworkOp>(clone);
    if (!fw)
      return;
    fw.setDeviceAttr(b.getI64IntegerAttr(device));
    if (!fw.hasWork())
      return;
    const bool exchange = isExpertExchange(fw);
    SmallVector<WorkAttr> work(fw.getWorkList());
    for (WorkAttr &w : work) {
      w = w.withDevice(device);
      if (w.isCollective() && (exchange || (tp > 1 && device > 0))) {
        auto collective = cast<CollectiveWork>(w);
        SmallVector<int64_t> group(collective.getGroup());
        for (int64_t &d : group)
          d = exchange ? device + d / tp * replicaStep : d + device;
        w = collective.withGroup(group);
      }
    }
    fw.setWorkList(work);
  }

  /// A send of `values` (original values of micro-batch `mb`) from chunk
  /// `from` to chunk `to` on another device, launched by the sender's host
  /// thread.
  void emitSend(int64_t from, int64_t to, ArrayRef<Value> values, int64_t mb) {
    IRMapping &map = maps[mb];
    SmallVector<Value> inputs;
    int64_t bytes = 0;
    for (Value value : values) {
      inputs.push_back(map.lookup(value));
      bytes += tensorBytes(value.getType());
    }
    SmallVector<int64_t> group{deviceOf(from), deviceOf(to)};
    FrameworkOp send = createCommOp(
        b, graph.getLoc(), "pp::send", inputs, deviceOf(from),
        makeCollectiveWork(b.getContext(), WorkKind::Send, bytes, group,
                           deviceOf(from),
                           linkStream(stageOfChunk(from), stageOfChunk(to))));
    send->setAttr(kMicrobatchAttr, b.getI64IntegerAttr(mb));
    ++numSends;
    for (auto [value, r] : llvm::zip(values, send->getResults()))
      delivered[{mb, value.getAsOpaquePointer(), to}] = r;
  }

  /// Copies chunk `chunk`'s `ops` for micro-batch `mb`, after the sends of
  /// what they read from other devices; the stage then sends what later
  /// stages read as soon as it has produced it, from its own host thread
  /// (as PipeDream and Megatron do), not when the reader is launched.
  void emitChunk(ArrayRef<Operation *> ops, int64_t chunk, int64_t mb) {
    IRMapping &map = maps[mb];
    // Values from other devices' chunks not sent yet, grouped by sender.
    llvm::MapVector<int64_t, SmallVector<Value>> incoming;
    for (Operation *op : ops)
      for (Value value : op->getOperands()) {
        Operation *def = value.getDefiningOp();
        if (!def || !chunkOf.count(def) || !crosses(chunkOf[def], chunk))
          continue;
        if (delivered.count({mb, value.getAsOpaquePointer(), chunk}))
          continue;
        auto &list = incoming[chunkOf[def]];
        if (!llvm::is_contained(list, value))
          list.push_back(value);
      }
    for (auto &[from, values] : incoming)
      emitSend(from, chunk, values, mb);
    for (Operation *op : ops) {
      IRMapping local = map;
      for (Value value : op->getOperands()) {
        auto it = delivered.find({mb, value.getAsOpaquePointer(), chunk});
        if (it != delivered.end())
          local.map(value, it->second);
      }
      Operation *clone = b.clone(*op, local);
      for (auto [from, to] : llvm::zip(op->getResults(), clone->getResults()))
        map.map(from, to);
      place(clone, chunk);
      clone->setAttr(kStageAttr, b.getI64IntegerAttr(stageOfChunk(chunk)));
      if (v > 1)
        clone->setAttr(kChunkAttr, b.getI64IntegerAttr(chunk));
      clone->setAttr(kMicrobatchAttr, b.getI64IntegerAttr(mb));
    }
    llvm::MapVector<int64_t, SmallVector<Value>> outgoing;
    for (Operation *op : ops)
      for (Value r : op->getResults())
        for (Operation *user : r.getUsers()) {
          auto it = chunkOf.find(user);
          if (it == chunkOf.end() || !crosses(chunk, it->second) ||
              llvm::is_contained(tail, user))
            continue;
          auto &list = outgoing[it->second];
          if (!llvm::is_contained(list, r))
            list.push_back(r);
        }
    for (auto &[to, values] : outgoing)
      emitSend(chunk, to, values, mb);
  }

  GraphOp graph;
  OpBuilder b;
  /// Stages, micro-batches, chunks per stage and chunks in all.
  const int64_t n, m, v, numChunks;
  int64_t tp = 1, spacing = 1, replicaStep = 1;
  SmallVector<Operation *> fwd, bwd, tail, all;
  llvm::DenseMap<Operation *, int64_t> chunkOf;
  /// (forward?, chunk) -> ops in original order.
  SmallVector<SmallVector<Operation *>> fwdChunk, bwdChunk;
  SmallVector<IRMapping> maps;
  /// (micro-batch, original value, chunk) -> the value delivered there.
  std::map<std::tuple<int64_t, void *, int64_t>, Value> delivered;
  int64_t numSends = 0;
};

struct PipelineParallelPass
    : perf::impl::PipelineParallelBase<PipelineParallelPass> {
  using PipelineParallelBase::PipelineParallelBase;

  LogicalResult initialize(MLIRContext *context) override {
    Location loc = UnknownLoc::get(context);
    if (devices < 1 || microbatches < 0 ||
        (schedule != "gpipe" && schedule != "1f1b"))
      return emitError(loc, "--perf-pipeline-parallel: devices must be "
                            "positive and schedule gpipe or 1f1b");
    if (chunks < 1 || !withinLimit(chunks, kMaxDevices))
      return emitError(loc,
                       "--perf-pipeline-parallel: chunks must be from 1 to ")
             << kMaxDevices.max << ", got " << int64_t(chunks);
    if (chunks > 1 && schedule != "1f1b")
      return emitError(loc, "--perf-pipeline-parallel: chunks above 1 "
                            "interleave the 1f1b schedule; schedule=")
             << schedule.getValue() << " has no interleaved form";
    if (stride < 0 || !withinLimit(stride, kMaxDevices))
      return emitError(loc, "--perf-pipeline-parallel: stride must be from 0 "
                            "to ")
             << kMaxDevices.max << ", got " << int64_t(stride);
    if (balance != "time" && balance != "flops")
      return emitError(loc, "--perf-pipeline-parallel: balance must be time "
                            "or flops, got '")
             << balance.getValue() << "'";
    return success();
  }

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    if (failed(runOnGraph(getOperation())))
      signalPassFailure();
  }

  /// Per-device task order of the schedule (chunk c = device with one
  /// chunk per device).
  SmallVector<std::deque<Task>> buildOrder(int64_t n, int64_t m) {
    SmallVector<std::deque<Task>> order(n);
    for (int64_t s = 0; s < n; ++s) {
      if (schedule == "gpipe") {
        for (int64_t i = 0; i < m; ++i)
          order[s].push_back({true, i, s});
        for (int64_t i = 0; i < m; ++i)
          order[s].push_back({false, i, s});
        continue;
      }
      int64_t warmup = std::min(n - s - 1, m);
      for (int64_t i = 0; i < warmup; ++i)
        order[s].push_back({true, i, s});
      for (int64_t i = 0; i + warmup < m; ++i) {
        order[s].push_back({true, warmup + i, s});
        order[s].push_back({false, i, s});
      }
      for (int64_t i = m - warmup; i < m; ++i)
        order[s].push_back({false, i, s});
    }
    return order;
  }

  /// Megatron-LM's interleaved 1F1B order
  /// (forward_backward_pipelining_with_interleaving): device d runs its
  /// m x v forward tasks in groups of n micro-batches per chunk, chunk by
  /// chunk, and its backward tasks in the same groups from its last chunk
  /// down, after (n - d - 1) x 2 + (v - 1) x n warm-up forwards (all of
  /// them when m == n).
  SmallVector<std::deque<Task>> buildInterleavedOrder(int64_t n, int64_t m,
                                                      int64_t v) {
    SmallVector<std::deque<Task>> order(n);
    const int64_t total = m * v;
    for (int64_t d = 0; d < n; ++d) {
      auto task = [&](int64_t k, bool forward) {
        int64_t local = (k / n) % v;
        if (!forward)
          local = v - 1 - local;
        int64_t microbatch = (k / (n * v)) * n + k % n;
        return Task{forward, microbatch, local * n + d};
      };
      int64_t warmup =
          m == n ? total : std::min((n - d - 1) * 2 + (v - 1) * n, total);
      for (int64_t k = 0; k < warmup; ++k)
        order[d].push_back(task(k, true));
      for (int64_t k = 0; k + warmup < total; ++k) {
        order[d].push_back(task(warmup + k, true));
        order[d].push_back(task(k, false));
      }
      for (int64_t k = total - warmup; k < total; ++k)
        order[d].push_back(task(k, false));
    }
    return order;
  }

  LogicalResult runOnGraph(GraphOp graph) {
    if (failed(refuseLaterLayouts(graph, "--perf-pipeline-parallel",
                                  kPipelineParallelAttr,
                                  {kDataParallelAttr, kZeroAttr})))
      return failure();
    const int64_t n = devices;
    const int64_t m = microbatches ? int64_t(microbatches) : 2 * n;
    const int64_t v = chunks;
    if (v > 1 && m % n != 0)
      return graph.emitError("--perf-pipeline-parallel: interleaving (chunks=")
             << v << ") needs micro-batches divisible by the " << n
             << " devices, got " << m;
    PipelineBuild build(graph, n, m, v);
    if (!build.partition(balance == "time"))
      return success();
    if (failed(build.placeStages(stride)))
      return failure();
    if (failed(build.emitSchedule(v > 1 ? buildInterleavedOrder(n, m, v)
                                        : buildOrder(n, m))))
      return failure();
    build.emitOptimizerSteps();
    build.finish(schedule);
    return success();
  }
};
} // namespace
