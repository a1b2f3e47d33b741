//===- ShardEmbeddings.cpp - --perf-shard-embeddings ----------------------===//
//
// Model-parallel embeddings as in DLRM (Naumov et al. 2019, Sec. 4): each
// table lives on one GPU, which looks up the whole batch for it; an
// all_to_all then hands every GPU the pooled embeddings of its share of the
// batch (and the gradients go back the same way). How evenly the tables are
// spread sets when the all_to_all can start: Lin et al. ("Building a
// Performance Model for Deep Learning Recommendation Model Training on
// GPUs") use exactly this to compare sharding strategies.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/GraphWalk.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/ReportOutput.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <numeric>

namespace perf {
#define GEN_PASS_DEF_SHARDEMBEDDINGS
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
struct DeviceLoad {
  int64_t tables = 0;
  double tableBytes = 0, lookups = 0, bytesRead = 0;
};

/// One embedding lookup: the op that launches it, its place in that op's
/// work, and the lookup itself.
struct Lookup {
  FrameworkOp parent;
  size_t index;
  EmbeddingBagWork work;

  bool operator==(const Lookup &other) const {
    return parent == other.parent && index == other.index;
  }
  int64_t tables() const { return work.getTables(); }
  int64_t rows() const { return work.getRows(); }
  int64_t dim() const { return work.getDim(); }
  int64_t batch() const { return work.getBatch(); }
  int64_t pooling() const { return work.getPooling(); }
  TrainingPass pass() const { return work.getPass(); }
  DType dtype() const { return work.getKernelDesc().dtype; }
};

struct ShardEmbeddingsPass
    : perf::impl::ShardEmbeddingsBase<ShardEmbeddingsPass> {
  using ShardEmbeddingsBase::ShardEmbeddingsBase;

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    StringRef s = strategy;
    if (devices < 1 || (s != "size" && s != "lookup" && s != "greedy")) {
      getOperation().emitError("--perf-shard-embeddings: devices must be "
                               "positive and strategy size, lookup or greedy");
      return signalPassFailure();
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    (void)forEachGraph(getOperation(), [&](GraphOp graph) {
      runOnGraph(graph, os);
      return success();
    });
    if (failed(writeReport(getOperation(), output, text)))
      return signalPassFailure();
  }

  /// What the strategy balances for one table of `e`.
  double weightOf(const Lookup &e) {
    double elem = dtypeBytes(e.dtype());
    double lookups = double(e.batch()) * double(e.pooling());
    if (strategy == "size")
      return double(e.rows()) * double(e.dim()) * elem;
    if (strategy == "lookup")
      return lookups;
    return lookups * double(e.dim()) * elem;
  }

  void runOnGraph(GraphOp graph, llvm::raw_ostream &os) {
    const int64_t n = devices;
    // Forward embedding kernels, in graph order.
    SmallVector<Lookup> forward;
    SmallVector<Lookup> all;
    graph.walk([&](FrameworkOp parent) {
      for (auto [index, work] : llvm::enumerate(parent.getWorkList())) {
        auto lookup = dyn_cast<EmbeddingBagWork>(work);
        if (!lookup)
          continue;
        all.push_back({parent, index, lookup});
        if (all.back().pass() == TrainingPass::Fwd)
          forward.push_back(all.back());
      }
    });
    if (all.empty() || n == 1)
      return;

    // Largest-first onto the least loaded device (LPT), one table at a time.
    struct Unit {
      size_t kernel;
      double weight;
    };
    SmallVector<Unit> units;
    for (size_t i = 0; i < forward.size(); ++i)
      for (int64_t t = 0; t < forward[i].tables(); ++t)
        units.push_back({i, weightOf(forward[i])});
    std::stable_sort(
        units.begin(), units.end(),
        [](const Unit &a, const Unit &b) { return a.weight > b.weight; });
    SmallVector<double> load(n, 0);
    // counts[kernel][device] = tables of that kernel on that device.
    SmallVector<SmallVector<int64_t>> counts(forward.size(),
                                             SmallVector<int64_t>(n, 0));
    for (const Unit &u : units) {
      int64_t d = std::min_element(load.begin(), load.end()) - load.begin();
      load[d] += u.weight;
      ++counts[u.kernel][d];
    }

    SmallVector<DeviceLoad> loads(n);
    for (size_t i = 0; i < forward.size(); ++i) {
      const Lookup &e = forward[i];
      double elem = dtypeBytes(e.dtype());
      double lookups = double(e.batch()) * double(e.pooling());
      for (int64_t d = 0; d < n; ++d) {
        int64_t c = counts[i][d];
        loads[d].tables += c;
        loads[d].tableBytes += c * double(e.rows()) * e.dim() * elem;
        loads[d].lookups += c * lookups;
        loads[d].bytesRead += c * lookups * e.dim() * elem;
      }
    }

    OpBuilder b(&getContext());
    SmallVector<int64_t> group = iotaGroup(n);
    SmallVector<bool> matched(forward.size(), false);
    int64_t numAllToAll = 0;
    // Replaced kernels are dropped after the loop: later backward kernels
    // still compare their shapes with the forward ones, and the indices of
    // the others stay valid.
    llvm::MapVector<Operation *, SmallVector<size_t>> replaced;
    for (const Lookup &e : all) {
      FrameworkOp parent = e.parent;
      // A backward kernel takes the placement of the forward kernel with the
      // same shape.
      size_t which = forward.size();
      for (size_t i = 0; i < forward.size(); ++i) {
        const Lookup &f = forward[i];
        if (f == e || (!matched[i] && e.pass() != TrainingPass::Fwd &&
                       f.tables() == e.tables() && f.rows() == e.rows() &&
                       f.dim() == e.dim() && f.batch() == e.batch())) {
          which = i;
          break;
        }
      }
      if (which == forward.size())
        continue; // No forward twin: leave it where it is.
      if (e.pass() != TrainingPass::Fwd)
        matched[which] = true;
      bool isForward = e.pass() == TrainingPass::Fwd;
      double elem = dtypeBytes(e.dtype());
      int64_t maxTables =
          *std::max_element(counts[which].begin(), counts[which].end());
      int64_t a2aBytes =
          int64_t(maxTables * double(e.batch()) * double(e.dim()) * elem);
      // Work has no location of its own: the new ops take its op's.
      Location loc = parent.getLoc();

      auto buildAllToAll = [&](ValueRange inputs) {
        FrameworkOp comm =
            createCommOp(b, loc, "emb::all_to_all", inputs, 0,
                         makeCollectiveWork(&getContext(), WorkKind::AllToAll,
                                            a2aBytes, group));
        ++numAllToAll;
        return comm;
      };
      auto buildLookups = [&](ValueRange inputs) {
        SmallVector<Value> done;
        for (int64_t d = 0; d < n; ++d) {
          if (counts[which][d] == 0)
            continue;
          // The device's bags: batch rows of dim per table it holds (what
          // the all_to_all then sends), so the memory analysis sees them.
          Type looked =
              RankedTensorType::get({counts[which][d] * e.batch(), e.dim()},
                                    getElementType(&getContext(), e.dtype()));
          auto op = FrameworkOp::create(b, loc, TypeRange{looked},
                                        parent.getOpNameAttr(), inputs,
                                        b.getI64IntegerAttr(d));
          // One table, like device 0, is the default and left unwritten.
          int64_t tables = counts[which][d];
          op.appendWork(e.work.withTables(tables).withDevice(d));
          op->setAttr(kShardAttr, b.getI64IntegerAttr(d));
          done.push_back(op->getResult(0));
        }
        return done;
      };

      b.setInsertionPoint(parent);
      SmallVector<Value> inputs(parent.getInputs());
      SmallVector<Value> extra;
      // The tables move to the lookups' devices, which hold them (they
      // declare no weights of their own): the op keeps only the rest of the
      // weights it declared.
      if (auto params = parent->getAttrOfType<IntegerAttr>(kParamsAttr);
          params && isForward) {
        int64_t moved = e.tables() * e.rows() * e.dim();
        parent->setAttr(kParamsAttr, b.getI64IntegerAttr(std::max<int64_t>(
                                         0, params.getInt() - moved)));
      }
      if (isForward) {
        SmallVector<Value> looked = buildLookups(inputs);
        FrameworkOp comm = buildAllToAll(looked);
        extra.append(comm->result_begin(), comm->result_end());
      } else {
        FrameworkOp comm = buildAllToAll(inputs);
        SmallVector<Value> commOut(comm->getResults());
        extra = buildLookups(commOut);
      }
      replaced[parent].push_back(e.index);
      parent->insertOperands(parent->getNumOperands(), extra);
    }
    for (auto &[op, indices] : replaced) {
      auto parent = cast<FrameworkOp>(op);
      SmallVector<WorkAttr> kept;
      for (auto [index, work] : llvm::enumerate(parent.getWorkList()))
        if (!llvm::is_contained(indices, index))
          kept.push_back(work);
      parent.setWorkList(kept);
    }

    os << "Embedding shards @" << graph.getSymName() << " (" << n
       << " devices, strategy " << strategy << ")\n";
    os << "  device  tables  table-MB  lookups/step  MB-read/step\n";
    SmallVector<Attribute> loadAttrs;
    double maxRead = 0, sumRead = 0;
    for (int64_t d = 0; d < n; ++d) {
      const DeviceLoad &l = loads[d];
      os << llvm::format("  %6lld  %6lld  %8.1f  %12.0f  %12.2f\n",
                         (long long)d, (long long)l.tables, l.tableBytes / 1e6,
                         l.lookups, l.bytesRead / 1e6);
      maxRead = std::max(maxRead, l.bytesRead);
      sumRead += l.bytesRead;
      loadAttrs.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("device", b.getI64IntegerAttr(d)),
           b.getNamedAttr("tables", b.getI64IntegerAttr(l.tables)),
           b.getNamedAttr("table_bytes", b.getF64FloatAttr(l.tableBytes)),
           b.getNamedAttr("lookups", b.getF64FloatAttr(l.lookups)),
           b.getNamedAttr("bytes_read", b.getF64FloatAttr(l.bytesRead))}));
    }
    double imbalance = sumRead > 0 ? maxRead / (sumRead / n) : 1.0;
    os << llvm::format("  imbalance (max / mean bytes read): %.3f\n",
                       imbalance);
    graph->setAttr(
        kEmbeddingShardsAttr,
        b.getDictionaryAttr(
            {b.getNamedAttr("strategy", b.getStringAttr(strategy)),
             b.getNamedAttr("imbalance", b.getF64FloatAttr(imbalance)),
             b.getNamedAttr("all_to_all", b.getI64IntegerAttr(numAllToAll)),
             b.getNamedAttr("devices", b.getArrayAttr(loadAttrs))}));
  }
};
} // namespace
