//===- PaiArchitecture.cpp - --perf-pai-architecture ----------------------===//
//
// The training architectures of Wang et al., "Characterizing Deep Learning
// Training Workloads on Alibaba-PAI" (IISWC 2019, Sec. II-A, Table II), as
// graph rewrites the critical path times, next to the closed-form breakdown
// of --perf-pai-breakdown:
//
//   input I/O          pai::input, an h2d copy of the batch over host PCIe
//   PS/Worker          pai::pull (recv from each parameter server) before the
//                      forward pass, pai::push (send to each) after the
//                      backward pass; the servers run the optimizer
//   AllReduce-Local    one ring all_reduce of the gradients inside a server
//   AllReduce-Cluster  one all_reduce across servers, NCCL's choice
//
// As in the paper's model nothing overlaps: every op runs on stream 0 of
// device 0 (one replica stands for the symmetric workers).
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "perf/Dialect/InputDiagnostics.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/GraphWalk.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/UnrolledWalk.h"

namespace perf {
#define GEN_PASS_DEF_PAIARCHITECTURE
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
struct PaiArchitecturePass
    : perf::impl::PaiArchitectureBase<PaiArchitecturePass> {
  using PaiArchitectureBase::PaiArchitectureBase;

  // Resolved options.
  int64_t perNode = 1, servers = 0;
  SmallVector<int64_t> workerRanks, serverIds;

  // The options and the system are checked and resolved once, before any
  // graph runs; every graph is rewritten for the same placement.
  LogicalResult initialize(MLIRContext *context) override {
    Location loc = UnknownLoc::get(context);
    StringRef a = arch;
    if (a != "ps-worker" && a != "allreduce-local" &&
        a != "allreduce-cluster") {
      emitError(loc) << "--perf-pai-architecture: unknown arch '" << a
                     << "' (ps-worker, allreduce-local, allreduce-cluster)";
      return failure();
    }
    if (workers < 1 || ps < 0 || gpusPerNode < 0 || inputBytes < 0) {
      emitError(loc, "--perf-pai-architecture: workers must be positive, "
                     "ps, gpus-per-node and input-bytes non-negative");
      return failure();
    }
    llvm::Expected<SystemSpec> spec = loadSystemSpec(system);
    if (!spec) {
      emitInputError(loc, spec.takeError());
      return failure();
    }
    const int64_t serverGpus = spec->gpusPerNode;
    perNode = gpusPerNode > 0    ? int64_t(gpusPerNode)
              : a == "ps-worker" ? 1
                                 : std::min<int64_t>(workers, serverGpus);
    if (perNode > serverGpus) {
      emitError(loc) << "--perf-pai-architecture: gpus-per-node " << perNode
                     << " exceeds the " << serverGpus << " GPUs a server of '"
                     << spec->name << "' has";
      return failure();
    }
    if (a == "allreduce-local" && workers > perNode) {
      emitError(loc) << "--perf-pai-architecture: allreduce-local keeps "
                        "the job in one server, but "
                     << int64_t(workers) << " workers exceed " << perNode
                     << " GPUs a server (use allreduce-cluster)";
      return failure();
    }
    int64_t nodes = (workers + perNode - 1) / perNode;
    if (nodes > int64_t(spec->nodes)) {
      emitError(loc) << "--perf-pai-architecture: " << int64_t(workers)
                     << " workers at " << perNode << " a server need " << nodes
                     << " servers; '" << spec->name << "' has " << spec->nodes;
      return failure();
    }
    // Worker i is GPU i % perNode of server i / perNode.
    workerRanks.clear();
    for (int64_t i = 0; i < workers; ++i)
      workerRanks.push_back((i / perNode) * serverGpus + i % perNode);
    servers = a == "ps-worker" ? (ps > 0 ? int64_t(ps) : int64_t(workers)) : 0;
    serverIds = iotaGroup(servers, spec->numGpus());
    return success();
  }

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())) ||
        failed(runOnGraph(getOperation())))
      signalPassFailure();
  }

  LogicalResult runOnGraph(GraphOp graph) {
    StringRef a = arch;
    Block &body = graph.getBodyBlock();
    Location loc = graph.getLoc();
    OpBuilder b(&getContext());
    int64_t weights = 0;
    FrameworkOp lastGradient;
    SmallVector<FrameworkOp> optimizers;
    for (Operation &op : body) {
      auto fw = dyn_cast<FrameworkOp>(op);
      if (!fw)
        continue;
      if (isOptimizerOp(fw)) {
        optimizers.push_back(fw);
        continue;
      }
      // As --perf-pai-breakdown counts the weights: every op's gradients.
      if (gradientBytes(fw) > 0) {
        weights += gradientBytes(fw);
        lastGradient = fw;
      }
    }
    if (!lastGradient && workers > 1)
      return graph.emitError()
             << "--perf-pai-architecture: graph @" << graph.getSymName()
             << " produces no gradients (no 'perf.grad_bytes' and no wgrad "
                "GEMM or convolution); is it a training graph?";

    // Ops inserted at the top go in order: input, then the pulls.
    b.setInsertionPointToStart(&body);
    if (inputBytes > 0) {
      // GPUs of the job on one server share its host PCIe link (T_d of the
      // paper multiplies by the local GPUs).
      int64_t sharers = std::min<int64_t>(perNode, workers);
      NamedAttrList copy;
      copy.append("bytes", b.getI64IntegerAttr(inputBytes));
      copy.append("kind",
                  CopyDirectionAttr::get(b.getContext(), CopyDirection::H2D));
      copy.append(kHostLinkShareAttr, b.getI64IntegerAttr(sharers));
      createCommOp(b, loc, "pai::input", ValueRange{}, 0,
                   WorkAttr::get(b.getContext(), WorkKind::Memcpy,
                                 copy.getDictionary(b.getContext())));
    }
    // Each server holds an equal shard of the weights (the last the rest).
    auto shard = [&](int64_t j) {
      int64_t base = weights / servers;
      return j + 1 == servers ? weights - base * (servers - 1) : base;
    };
    auto transfer = [&](StringRef name, int64_t bytes, int64_t from, int64_t to,
                        bool pull) {
      createCommOp(b, loc, name, ValueRange{}, 0,
                   makeCollectiveWork(b.getContext(),
                                      pull ? WorkKind::Recv : WorkKind::Send,
                                      bytes, {from, to}));
    };
    int64_t removedOptimizers = 0;
    if (a == "ps-worker" && weights > 0) {
      for (int64_t j = 0; j < servers; ++j)
        transfer("pai::pull", shard(j), serverIds[j], 0, /*pull=*/true);
      b.setInsertionPointAfter(lastGradient);
      for (int64_t j = 0; j < servers; ++j)
        transfer("pai::push", shard(j), 0, serverIds[j], /*pull=*/false);
      // The servers apply the update.
      for (FrameworkOp opt : optimizers)
        if (opt->use_empty()) {
          opt->erase();
          ++removedOptimizers;
        }
    } else if (a != "ps-worker" && weights > 0 && workers > 1) {
      b.setInsertionPointAfter(lastGradient);
      // AllReduce-Local is the paper's ring; across servers NCCL's tuner
      // picks (its ring, or its tree: a chain inside each server, a double
      // binary tree across).
      std::optional<NcclAlgorithm> algorithm;
      if (a == "allreduce-local")
        algorithm = NcclAlgorithm::Ring;
      createCommOp(b, loc, "pai::all_reduce", ValueRange{}, 0,
                   cast<CollectiveWork>(
                       makeCollectiveWork(b.getContext(), WorkKind::AllReduce,
                                          weights, workerRanks))
                       .withAlgorithm(algorithm));
    }
    graph->setAttr(
        kPaiArchitectureAttr,
        b.getDictionaryAttr({
            b.getNamedAttr("arch", b.getStringAttr(a)),
            b.getNamedAttr("workers", b.getI64IntegerAttr(workers)),
            b.getNamedAttr("ps", b.getI64IntegerAttr(servers)),
            b.getNamedAttr("gpus_per_node", b.getI64IntegerAttr(perNode)),
            b.getNamedAttr("weight_bytes", b.getI64IntegerAttr(weights)),
            b.getNamedAttr("input_bytes", b.getI64IntegerAttr(inputBytes)),
            b.getNamedAttr("parameter_servers",
                           b.getDenseI64ArrayAttr(serverIds)),
            b.getNamedAttr("system", b.getStringAttr(system)),
            b.getNamedAttr("removed_optimizer_ops",
                           b.getI64IntegerAttr(removedOptimizers)),
        }));
    return success();
  }
};
} // namespace
