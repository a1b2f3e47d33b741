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
priceAllToAll(AllToAllOp op, const SystemSpec &system) {
  SmallVector<int> ranks;
  for (int64_t r : op.getGroup())
    ranks.push_back(int(r));
  size_t n = ranks.size();
  std::vector<double> matrix(n * n, double(op.getBytes()) / double(n));
  if (std::optional<ArrayRef<int64_t>> splits = op.getSplitBytes())
    for (size_t i = 0; i < n * n; ++i)
      matrix[i] = double((*splits)[i]);
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
    if (priceGraph(getOperation()).wasInterrupted())
      signalPassFailure();
  }

  /// Prices the graph's collectives and shared host copies; interrupted
  /// after an error on an op.
  WalkResult priceGraph(GraphOp graph) {
    Builder b(&getContext());
    // Collectives measured on hardware keep their latency, so a graph of
    // only those needs no system (nor a target GPU).
    bool hasCollectives = false;
    graph.walk([&](Operation *op) {
      hasCollectives |= (isa<CollectiveOpInterface>(op) ||
                         hasDiscardable(op, kHostLinkShareAttr)) &&
                        !hasMeasuredLatency(op);
    });
    if (!hasCollectives)
      return WalkResult::advance();
    // Without a system of its own, a graph rewritten for a PAI
    // architecture is priced on the system its workers were placed on.
    std::string systemName = this->system;
    if (auto pai = graph->getAttrOfType<DictionaryAttr>(kPaiArchitectureAttr))
      if (auto placed = pai.getAs<StringAttr>("system");
          placed && systemName.empty())
        systemName = placed.str();
    FailureOr<SystemSpec> system = getGraphSystem(graph, systemName);
    if (failed(system))
      return WalkResult::interrupt();
    // Parameter servers of a PS/Worker rewrite are hosts, not GPUs of the
    // system; their transfers cross the network and the worker's PCIe.
    std::set<int64_t> servers;
    unsigned workers = 0, numServers = 0, workersPerNode = 1;
    if (auto pai = graph->getAttrOfType<DictionaryAttr>(kPaiArchitectureAttr)) {
      if (auto ids = pai.getAs<DenseI64ArrayAttr>("parameter_servers"))
        servers.insert(ids.asArrayRef().begin(), ids.asArrayRef().end());
      auto get = [&](StringRef key) -> unsigned {
        auto a = pai.getAs<IntegerAttr>(key);
        return a ? unsigned(a.getInt()) : 0u;
      };
      workers = get("workers");
      numServers = get("ps");
      workersPerNode = std::max(1u, get("gpus_per_node"));
    }
    WalkResult inner = graph.walk([&](Operation *op) {
      if (auto share = getDiscardable<IntegerAttr>(op, kHostLinkShareAttr)) {
        if (auto copy = dyn_cast<MemcpyOp>(op);
            copy && !hasMeasuredLatency(op)) {
          op->setAttr(kLatencyAttr,
                      b.getF64FloatAttr(hostCopyUs(
                          double(copy.getBytes()), *system,
                          unsigned(std::max<int64_t>(1, share.getInt())))));
          op->setAttr(kCostModelAttr, b.getStringAttr("alpha-beta"));
        }
        return WalkResult::advance();
      }
      // A collective measured on hardware (an imported trace) keeps its
      // latency.
      auto collective = dyn_cast<CollectiveOpInterface>(op);
      if (!collective || hasMeasuredLatency(op))
        return WalkResult::advance();
      CollectiveKind kind = collective.getCollectiveKind();
      ArrayRef<int64_t> group = collective.getGroupIds();
      if (llvm::any_of(group,
                       [&](int64_t r) { return servers.count(r) > 0; })) {
        if (kind != CollectiveKind::SendRecv) {
          op->emitOpError("a parameter server takes part only in send/recv");
          return WalkResult::interrupt();
        }
        op->setAttr(kLatencyAttr,
                    b.getF64FloatAttr(parameterServerTransferUs(
                        double(collective.getByteCount()), *system, workers,
                        numServers, workersPerNode)));
        op->setAttr(kCostModelAttr, b.getStringAttr("alpha-beta"));
        op->setAttr(kAlgorithmAttr, b.getStringAttr("parameter-server"));
        return WalkResult::advance();
      }
      for (int64_t rank : group)
        if (rank >= int64_t(system->numGpus())) {
          op->emitOpError()
              << "device " << rank << " is outside system '" << system->name
              << "' of " << system->numGpus() << " GPUs";
          return WalkResult::interrupt();
        }
      CollectiveAlgorithm algo = defaultAlgorithm;
      // The IR's enum spells NCCL's algorithms as the cost model does.
      if (auto own = op->getAttrOfType<NcclAlgorithmAttr>("algorithm"))
        algo =
            *parseCollectiveAlgorithm(stringifyNcclAlgorithm(own.getValue()));
      // Send/recv and all_to_all are NCCL point-to-point transfers: the
      // pass-wide algorithm and protocol are for the tuned collectives.
      bool p2p =
          kind == CollectiveKind::SendRecv || kind == CollectiveKind::AllToAll;
      if (p2p && !op->hasAttr("algorithm"))
        algo = CollectiveAlgorithm::Auto;
      llvm::Expected<CollectiveEstimate> estimate =
          isa<AllToAllOp>(op) && algo == CollectiveAlgorithm::Auto
              ? priceAllToAll(cast<AllToAllOp>(op), *system)
              : estimateCollective(kind, double(collective.getByteCount()),
                                   placeGroup(group, *system), *system, algo,
                                   p2p ? CollectiveProtocol::Auto
                                       : defaultProtocol);
      if (!estimate) {
        op->emitOpError() << llvm::toString(estimate.takeError());
        return WalkResult::interrupt();
      }
      op->setAttr(kLatencyAttr, b.getF64FloatAttr(estimate->timeUs));
      op->setAttr(kCostModelAttr, b.getStringAttr("nccl"));
      op->setAttr(kAlgorithmAttr, b.getStringAttr(collectiveAlgorithmName(
                                      estimate->algorithm)));
      op->setAttr(kProtocolAttr,
                  b.getStringAttr(collectiveProtocolName(estimate->protocol)));
      return WalkResult::advance();
    });
    return inner;
  }
};
} // namespace
