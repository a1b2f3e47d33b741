//===- CommCost.cpp - --perf-comm-cost ------------------------------------===//
//
// Prices collectives and send/recv with the alpha-beta models of lib/Comm.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "perf/Comm/CollectiveModel.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/Passes.h"
#include "llvm/ADT/DenseSet.h"

namespace perf {
#define GEN_PASS_DEF_COMMCOST
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
struct CommCostPass : perf::impl::CommCostBase<CommCostPass> {
  using CommCostBase::CommCostBase;

  void runOnOperation() override {
    std::optional<CollectiveAlgorithm> defaultAlgorithm =
        parseCollectiveAlgorithm(algorithm);
    if (!defaultAlgorithm) {
      getOperation().emitError()
          << "--perf-comm-cost: unknown algorithm '" << algorithm
          << "' (auto, ring, tree, hierarchical)";
      return signalPassFailure();
    }
    Builder b(&getContext());
    WalkResult result = getOperation().walk([&](GraphOp graph) {
      // Collectives measured on hardware keep their latency, so a graph of
      // only those needs no system (nor a target GPU).
      bool hasCollectives = false;
      graph.walk([&](Operation *op) {
        hasCollectives |=
            (isCollective(op) || op->hasAttr(kHostLinkShareAttr)) &&
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
      llvm::SmallDenseSet<int64_t> servers;
      unsigned workers = 0, numServers = 0, workersPerNode = 1;
      if (auto pai =
              graph->getAttrOfType<DictionaryAttr>(kPaiArchitectureAttr)) {
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
        if (auto share = op->getAttrOfType<IntegerAttr>(kHostLinkShareAttr)) {
          if (auto copy = dyn_cast<MemcpyOp>(op);
              copy && !hasMeasuredLatency(op)) {
            op->setAttr(PerfDialect::kLatencyAttr,
                        b.getF64FloatAttr(hostCopyUs(
                            double(copy.getBytes()), *system,
                            unsigned(std::max<int64_t>(1, share.getInt())))));
            op->setAttr(PerfDialect::kCostModelAttr,
                        b.getStringAttr("alpha-beta"));
          }
          return WalkResult::advance();
        }
        // A collective measured on hardware (an imported trace) keeps its
        // latency.
        if (!isCollective(op) || hasMeasuredLatency(op))
          return WalkResult::advance();
        std::optional<CollectiveKind> kind =
            parseCollectiveKind(op->getName().stripDialect());
        if (!kind) {
          op->emitOpError("has no collective cost model");
          return WalkResult::interrupt();
        }
        ArrayRef<int64_t> group = getCollectiveGroup(op);
        if (llvm::any_of(group,
                         [&](int64_t r) { return servers.contains(r); })) {
          if (*kind != CollectiveKind::SendRecv) {
            op->emitOpError("a parameter server takes part only in send/recv");
            return WalkResult::interrupt();
          }
          op->setAttr(PerfDialect::kLatencyAttr,
                      b.getF64FloatAttr(parameterServerTransferUs(
                          double(getCollectiveBytes(op)), *system, workers,
                          numServers, workersPerNode)));
          op->setAttr(PerfDialect::kCostModelAttr,
                      b.getStringAttr("alpha-beta"));
          op->setAttr("perf.algorithm", b.getStringAttr("parameter-server"));
          return WalkResult::advance();
        }
        for (int64_t rank : group)
          if (rank >= int64_t(system->numGpus())) {
            op->emitOpError()
                << "device " << rank << " is outside system '" << system->name
                << "' of " << system->numGpus() << " GPUs";
            return WalkResult::interrupt();
          }
        CollectiveAlgorithm algo = *defaultAlgorithm;
        if (auto own = op->getAttrOfType<StringAttr>("algorithm")) {
          std::optional<CollectiveAlgorithm> parsed =
              parseCollectiveAlgorithm(own.getValue());
          if (!parsed) {
            op->emitOpError() << "unknown algorithm '" << own.getValue()
                              << "' (auto, ring, tree, hierarchical)";
            return WalkResult::interrupt();
          }
          algo = *parsed;
        }
        CollectiveEstimate estimate =
            estimateCollective(*kind, double(getCollectiveBytes(op)),
                               placeGroup(group, *system), *system, algo);
        op->setAttr(PerfDialect::kLatencyAttr,
                    b.getF64FloatAttr(estimate.timeUs));
        op->setAttr(PerfDialect::kCostModelAttr, b.getStringAttr("alpha-beta"));
        op->setAttr("perf.algorithm", b.getStringAttr(collectiveAlgorithmName(
                                          estimate.algorithm)));
        return WalkResult::advance();
      });
      return inner;
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
