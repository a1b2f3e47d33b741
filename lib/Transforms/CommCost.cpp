//===- CommCost.cpp - --perf-comm-cost ------------------------------------===//
//
// Prices collectives and send/recv with NCCL's model
// (lib/Comm/CollectiveModel), and parameter-server transfers and shared host
// copies with alpha-beta.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "perf/Comm/CollectiveModel.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/MapVector.h"
#include <set>

namespace perf {
#define GEN_PASS_DEF_COMMCOST
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

static constexpr const char *kAlgorithmNames =
    "auto, ring, tree, collnet_direct, collnet_chain, nvls, nvls_tree, pat";

/// An all_to_all over its own group's ranks: `split_bytes` as given, else
/// bytes / group size from every device to every other.
static llvm::Expected<CollectiveEstimate>
priceAllToAll(WorkAttr exchange, const SystemSpec &system) {
  SmallVector<int> ranks;
  for (int64_t r : exchange.getGroupIds())
    ranks.push_back(int(r));
  size_t n = ranks.size();
  std::vector<double> matrix(n * n,
                             double(exchange.getCollectiveBytes()) / double(n));
  if (auto splits = exchange.getAs<DenseI64ArrayAttr>("split_bytes"))
    for (size_t i = 0; i < n * n; ++i)
      matrix[i] = double(splits[i]);
  return estimateAllToAll(ranks, matrix, system);
}

namespace {
struct CommCostPass : perf::impl::CommCostBase<CommCostPass> {
  using CommCostBase::CommCostBase;

  // Options are checked before any pass runs.
  LogicalResult initialize(MLIRContext *context) override {
    Location loc = UnknownLoc::get(context);
    std::optional<CollectiveAlgorithm> parsedAlgorithm =
        parseCollectiveAlgorithm(algorithm);
    if (!parsedAlgorithm)
      return emitError(loc) << "--perf-comm-cost: unknown algorithm '"
                            << algorithm << "' (" << kAlgorithmNames << ")";
    std::optional<CollectiveProtocol> parsedProtocol =
        parseCollectiveProtocol(protocol);
    if (!parsedProtocol)
      return emitError(loc) << "--perf-comm-cost: unknown protocol '"
                            << protocol << "' (auto, LL, LL128, Simple)";
    defaultAlgorithm = *parsedAlgorithm;
    defaultProtocol = *parsedProtocol;
    return success();
  }

  CollectiveAlgorithm defaultAlgorithm = CollectiveAlgorithm::Auto;
  CollectiveProtocol defaultProtocol = CollectiveProtocol::Auto;

  void runOnOperation() override {
    if (failed(priceGraph(getOperation())))
      signalPassFailure();
  }

  /// Where parameter-server transfers go: the PS/Worker rewrite's servers
  /// (hosts, not GPUs of the system) and the workers they serve.
  struct ParameterServers {
    std::set<int64_t> servers;
    unsigned workers = 0, numServers = 0, workersPerNode = 1;
  };

  /// Prices the graph's collectives and shared host copies; fails after an
  /// error on an op.
  LogicalResult priceGraph(GraphOp graph) {
    // Collectives measured on hardware keep their latency, so a graph of
    // only those needs no system (nor a target GPU): it is read when the
    // first piece of work to price asks for it.
    std::optional<SystemSpec> system;
    ParameterServers ps;
    auto loadSystem = [&](int64_t maxDevice) -> LogicalResult {
      if (system)
        return success();
      // Without a system of its own, a graph rewritten for a PAI
      // architecture is priced on the system its workers were placed on.
      std::string systemName = this->system;
      auto pai = graph->getAttrOfType<DictionaryAttr>(kPaiArchitectureAttr);
      if (pai)
        if (auto placed = pai.getAs<StringAttr>("system");
            placed && systemName.empty())
          systemName = placed.str();
      FailureOr<SystemSpec> spec = getGraphSystem(graph, systemName, maxDevice);
      if (failed(spec))
        return failure();
      system = std::move(*spec);
      // Parameter servers of a PS/Worker rewrite are hosts, not GPUs of the
      // system; their transfers cross the network and the worker's PCIe.
      if (pai) {
        if (auto ids = pai.getAs<DenseI64ArrayAttr>("parameter_servers"))
          ps.servers.insert(ids.asArrayRef().begin(), ids.asArrayRef().end());
        auto get = [&](StringRef key) -> unsigned {
          auto a = pai.getAs<IntegerAttr>(key);
          return a ? unsigned(a.getInt()) : 0u;
        };
        ps.workers = get("workers");
        ps.numServers = get("ps");
        ps.workersPerNode = std::max(1u, get("gpus_per_node"));
      }
      return success();
    };
    // One walk finds the graph's devices (the system's size) and the ops
    // whose work this pass prices: a step repeats its work lists, so each
    // distinct list is read once, in the order first launched, and the ops
    // launching it are kept only when it holds something to price (a list
    // with no ops has nothing).
    MaxDeviceId devices;
    llvm::MapVector<ArrayAttr, SmallVector<FrameworkOp, 1>> opsByList;
    UnrolledWalk::forEachHostOp(graph, [&](Operation *op, int64_t) {
      auto fw = dyn_cast<FrameworkOp>(op);
      if (!fw)
        return;
      devices.addOpDevice(fw);
      ArrayAttr list = fw.getWorkAttr();
      if (!list)
        return;
      auto [known, fresh] = opsByList.try_emplace(list);
      SmallVector<FrameworkOp, 1> &ops = known->second;
      if (fresh) {
        devices.addWork(fw.getWorkList());
        if (llvm::any_of(fw.getWorkList(), needsPricing))
          ops.push_back(fw);
      } else if (!ops.empty()) {
        ops.push_back(fw);
      }
    });
    // Each distinct piece is priced once, and each distinct list rewritten
    // once, its first op naming any error.
    llvm::DenseMap<WorkAttr, WorkAttr> pricedWork;
    for (auto &[list, ops] : opsByList) {
      if (ops.empty())
        continue;
      FrameworkOp first = ops.front();
      SmallVector<WorkAttr> work(first.getWorkList());
      bool changed = false;
      for (WorkAttr &w : work) {
        if (!needsPricing(w))
          continue;
        auto known = pricedWork.find(w);
        if (known == pricedWork.end()) {
          if (failed(loadSystem(devices.get())))
            return failure();
          FailureOr<WorkAttr> priced = priceWork(first, w, *system, ps);
          if (failed(priced))
            return failure();
          known = pricedWork.try_emplace(w, *priced).first;
        }
        changed |= known->second != w;
        w = known->second;
      }
      if (!changed)
        continue;
      first.setWorkList(work);
      ArrayAttr pricedList = first.getWorkAttr();
      for (FrameworkOp other : llvm::drop_begin(ops))
        other.setWorkAttr(pricedList);
    }
    return success();
  }

  /// Whether this pass prices `work`: a collective or a shared host copy
  /// that was not measured on hardware.
  static bool needsPricing(WorkAttr work) {
    return (work.isCollective() || work.has(kHostLinkShareAttr)) &&
           !hasMeasuredLatency(work);
  }

  /// `work`, a piece of `op`'s, with the latency it is priced at when it is
  /// a collective or a shared host copy; fails after an error on `op`.
  FailureOr<WorkAttr> priceWork(FrameworkOp op, WorkAttr work,
                                const SystemSpec &system,
                                const ParameterServers &ps) {
    Builder b(&getContext());
    if (auto share = work.getAs<IntegerAttr>(kHostLinkShareAttr)) {
      if (!work.isMemcpy() || hasMeasuredLatency(work))
        return work;
      return work.with([&](NamedAttrList &attrs) {
        attrs.set(kLatencyAttr,
                  b.getF64FloatAttr(hostCopyUs(
                      double(cast<MemcpyWork>(work).getBytes()), system,
                      unsigned(std::max<int64_t>(1, share.getInt())))));
        attrs.set(kCostModelAttr, b.getStringAttr("alpha-beta"));
      });
    }
    // A collective measured on hardware (an imported trace) keeps its
    // latency.
    if (!work.isCollective() || hasMeasuredLatency(work))
      return work;
    CollectiveKind kind = work.getCollectiveKind();
    ArrayRef<int64_t> group = work.getGroupIds();
    if (llvm::any_of(group,
                     [&](int64_t r) { return ps.servers.count(r) > 0; })) {
      if (kind != CollectiveKind::SendRecv) {
        op.emitWorkError(work)
            << "a parameter server takes part only in send/recv";
        return failure();
      }
      return work.with([&](NamedAttrList &attrs) {
        attrs.set(kLatencyAttr,
                  b.getF64FloatAttr(parameterServerTransferUs(
                      double(work.getCollectiveBytes()), system, ps.workers,
                      ps.numServers, ps.workersPerNode)));
        attrs.set(kCostModelAttr, b.getStringAttr("alpha-beta"));
        attrs.set(kAlgorithmAttr, b.getStringAttr("parameter-server"));
      });
    }
    for (int64_t rank : group)
      if (rank >= int64_t(system.numGpus())) {
        op.emitWorkError(work)
            << "device " << rank << " is outside system '" << system.name
            << "' of " << system.numGpus() << " GPUs";
        return failure();
      }
    CollectiveAlgorithm algo = defaultAlgorithm;
    // The IR's enum spells NCCL's algorithms as the cost model does.
    std::optional<NcclAlgorithm> own =
        cast<CollectiveWork>(work).getAlgorithm();
    if (own)
      algo = *parseCollectiveAlgorithm(stringifyNcclAlgorithm(*own));
    // Send/recv and all_to_all are NCCL point-to-point transfers: the
    // pass-wide algorithm and protocol are for the tuned collectives.
    bool p2p =
        kind == CollectiveKind::SendRecv || kind == CollectiveKind::AllToAll;
    if (p2p && !own)
      algo = CollectiveAlgorithm::Auto;
    llvm::Expected<CollectiveEstimate> estimate =
        work.getKind() == WorkKind::AllToAll &&
                algo == CollectiveAlgorithm::Auto
            ? priceAllToAll(work, system)
            : estimateCollective(kind, double(work.getCollectiveBytes()),
                                 placeGroup(group, system), system, algo,
                                 p2p ? CollectiveProtocol::Auto
                                     : defaultProtocol);
    if (!estimate) {
      op.emitWorkError(work) << llvm::toString(estimate.takeError());
      return failure();
    }
    return work.with([&](NamedAttrList &attrs) {
      attrs.set(kLatencyAttr, b.getF64FloatAttr(estimate->timeUs));
      attrs.set(kCostModelAttr, b.getStringAttr("nccl"));
      attrs.set(kAlgorithmAttr,
                b.getStringAttr(collectiveAlgorithmName(estimate->algorithm)));
      attrs.set(kProtocolAttr,
                b.getStringAttr(collectiveProtocolName(estimate->protocol)));
    });
  }
};
} // namespace
