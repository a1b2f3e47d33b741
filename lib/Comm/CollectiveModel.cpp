//===- CollectiveModel.cpp - Alpha-beta cost of collectives ---------------===//

#include "perf/Comm/CollectiveModel.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include <algorithm>
#include <cmath>

using namespace perf;

llvm::StringRef perf::collectiveAlgorithmName(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
  case CollectiveAlgorithm::Ring:
    return "ring";
  case CollectiveAlgorithm::Tree:
    return "tree";
  case CollectiveAlgorithm::Hierarchical:
    return "hierarchical";
  case CollectiveAlgorithm::Auto:
    return "auto";
  }
  return "auto";
}

std::optional<CollectiveAlgorithm>
perf::parseCollectiveAlgorithm(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<CollectiveAlgorithm>>(name.lower())
      .Case("ring", CollectiveAlgorithm::Ring)
      .Case("tree", CollectiveAlgorithm::Tree)
      .Case("hierarchical", CollectiveAlgorithm::Hierarchical)
      .Case("auto", CollectiveAlgorithm::Auto)
      .Default(std::nullopt);
}

RankPlacement perf::placeRanks(llvm::ArrayRef<int> ranks,
                               const SystemSpec &system) {
  RankPlacement p;
  llvm::SmallSet<int, 16> unique;
  llvm::DenseMap<unsigned, unsigned> perNode;
  // (node, domain) pairs seen, to tell whether a node's ranks span domains.
  llvm::DenseMap<unsigned, unsigned> domainOfNode;
  unsigned domain = std::max(1u, system.domainSize());
  for (int r : ranks) {
    if (r < 0 || !unique.insert(r).second)
      continue;
    unsigned node = system.nodeOf(unsigned(r));
    unsigned d = (unsigned(r) % system.gpusPerNode) / domain;
    ++perNode[node];
    auto [it, inserted] = domainOfNode.try_emplace(node, d);
    if (!inserted && it->second != d)
      p.spansDomains = true;
  }
  p.numRanks = unique.size();
  p.numNodes = perNode.size();
  for (auto &kv : perNode)
    p.ranksPerNode = std::max(p.ranksPerNode, kv.second);
  return p;
}

RankPlacement perf::placeGroup(llvm::ArrayRef<int64_t> ranks,
                               const SystemSpec &system) {
  llvm::SmallVector<int> narrow;
  for (int64_t r : ranks)
    narrow.push_back(r < 0 || r > INT32_MAX ? -1 : int(r));
  return placeRanks(llvm::ArrayRef<int>(narrow), system);
}

RankPlacement perf::packRanks(unsigned count, const SystemSpec &system,
                              unsigned perNode) {
  if (perNode == 0 || perNode > system.gpusPerNode)
    perNode = system.gpusPerNode;
  RankPlacement p;
  p.numRanks = count;
  p.ranksPerNode = std::min(count, perNode);
  p.numNodes = p.ranksPerNode ? (count + perNode - 1) / perNode : 0;
  p.spansDomains = p.ranksPerNode > system.domainSize();
  return p;
}

namespace {
/// The alpha (us) and achieved bandwidth (bytes/s) a step of an algorithm
/// sees.
struct Hop {
  double alphaUs;
  double bandwidth;
  double timeUs(double bytes) const {
    return alphaUs + bytes / bandwidth * 1e6;
  }
};
} // namespace

/// The link between GPUs of one node: NVLink inside a domain, PCIe across.
static Hop localHop(const RankPlacement &p, const SystemSpec &s) {
  const LinkSpec &l = p.spansDomains ? s.hostPcie : s.intraNode;
  return {l.latencyUs, s.achievedBandwidth(l)};
}

/// Each GPU's share of its node's NICs when `local` GPUs of the node send at
/// once; a GPU uses at most one NIC.
static double nicShare(unsigned local, const SystemSpec &s) {
  local = std::max(1u, local);
  return s.achievedBandwidth(s.interNode) * std::min(s.nicsPerNode, local) /
         local;
}

/// The slowest link a flat algorithm over the whole group crosses.
static Hop flatHop(const RankPlacement &p, const SystemSpec &s) {
  if (p.numNodes <= 1)
    return localHop(p, s);
  Hop net{s.interNode.latencyUs, nicShare(p.ranksPerNode, s)};
  if (p.ranksPerNode > 1) {
    Hop local = localHop(p, s);
    net.alphaUs = std::max(net.alphaUs, local.alphaUs);
    net.bandwidth = std::min(net.bandwidth, local.bandwidth);
  }
  return net;
}

static double ringAllReduce(double n, double p, Hop h) {
  return 2 * (p - 1) * h.alphaUs + 2 * (p - 1) / p * n / h.bandwidth * 1e6;
}

static double ringGatherOrScatter(double n, double p, Hop h) {
  return (p - 1) * h.alphaUs + (p - 1) / p * n / h.bandwidth * 1e6;
}

static double treeAllReduce(double n, double p, Hop h) {
  return 2 * std::ceil(std::log2(p)) * h.alphaUs + 2 * n / h.bandwidth * 1e6;
}

/// Reduce-scatter inside each node, all-reduce of each GPU's 1/g shard across
/// nodes (g rings in parallel, one per local GPU), all-gather inside the node.
static double hierarchicalAllReduce(double n, const RankPlacement &p,
                                    const SystemSpec &s) {
  double g = p.ranksPerNode;
  double nodes = p.numNodes;
  Hop local = localHop(p, s);
  Hop net{s.interNode.latencyUs, nicShare(p.ranksPerNode, s)};
  double inter = std::min(ringAllReduce(n / g, nodes, net),
                          treeAllReduce(n / g, nodes, net));
  if (g <= 1)
    return inter;
  return 2 * ringGatherOrScatter(n, g, local) + inter;
}

CollectiveEstimate perf::estimateCollective(CollectiveKind kind, double bytes,
                                            const RankPlacement &p,
                                            const SystemSpec &s,
                                            CollectiveAlgorithm algorithm) {
  CollectiveEstimate e;
  e.algorithm = algorithm == CollectiveAlgorithm::Auto
                    ? CollectiveAlgorithm::Ring
                    : algorithm;
  if (p.numRanks < 2 || bytes < 0)
    return e;
  double n = bytes;
  double ranks = p.numRanks;
  Hop flat = flatHop(p, s);
  switch (kind) {
  case CollectiveKind::AllReduce: {
    double ring = ringAllReduce(n, ranks, flat);
    double tree = treeAllReduce(n, ranks, flat);
    bool multiNode = p.numNodes > 1;
    double hier = multiNode ? hierarchicalAllReduce(n, p, s) : ring;
    switch (algorithm) {
    case CollectiveAlgorithm::Ring:
      e.timeUs = ring;
      break;
    case CollectiveAlgorithm::Tree:
      e.timeUs = tree;
      break;
    case CollectiveAlgorithm::Hierarchical:
      e.timeUs = hier;
      break;
    case CollectiveAlgorithm::Auto:
      // Like NCCL's tuner: the cheapest of the algorithms that apply.
      e.timeUs = ring;
      if (tree < e.timeUs) {
        e.timeUs = tree;
        e.algorithm = CollectiveAlgorithm::Tree;
      }
      if (multiNode && hier < e.timeUs) {
        e.timeUs = hier;
        e.algorithm = CollectiveAlgorithm::Hierarchical;
      }
      break;
    }
    return e;
  }
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
    // Only the ring applies; the other algorithms price as the ring.
    e.algorithm = CollectiveAlgorithm::Ring;
    e.timeUs = ringGatherOrScatter(n, ranks, flat);
    return e;
  case CollectiveKind::AllToAll: {
    e.algorithm = CollectiveAlgorithm::Ring;
    if (p.numNodes <= 1) {
      e.timeUs = ringGatherOrScatter(n, ranks, flat);
      return e;
    }
    // The pieces for the node's own GPUs and for remote GPUs move at once
    // over different links; the slower set bounds the time.
    double g = p.ranksPerNode;
    Hop local = localHop(p, s);
    double localUs = (g - 1) / ranks * n / local.bandwidth * 1e6;
    double remoteUs =
        (ranks - g) / ranks * n / nicShare(p.ranksPerNode, s) * 1e6;
    e.timeUs = (ranks - 1) * flat.alphaUs + std::max(localUs, remoteUs);
    return e;
  }
  case CollectiveKind::Broadcast:
    e.algorithm = CollectiveAlgorithm::Ring;
    e.timeUs = (ranks - 1) * flat.alphaUs + n / flat.bandwidth * 1e6;
    return e;
  case CollectiveKind::SendRecv:
    e.algorithm = CollectiveAlgorithm::Ring;
    if (p.numNodes > 1)
      e.timeUs = Hop{s.interNode.latencyUs, nicShare(1, s)}.timeUs(n);
    else
      e.timeUs = localHop(p, s).timeUs(n);
    return e;
  }
  return e;
}

double perf::collectiveTimeUs(CollectiveKind kind, double bytes,
                              llvm::ArrayRef<int> ranks,
                              const SystemSpec &system,
                              CollectiveAlgorithm algorithm) {
  return estimateCollective(kind, bytes, placeRanks(ranks, system), system,
                            algorithm)
      .timeUs;
}

double perf::collectiveTimeUs(CollectiveKind kind, double bytes,
                              const RankPlacement &placement,
                              const SystemSpec &system,
                              CollectiveAlgorithm algorithm) {
  return estimateCollective(kind, bytes, placement, system, algorithm).timeUs;
}

double perf::parameterServerTransferUs(double bytes, const SystemSpec &system,
                                       unsigned workers, unsigned servers,
                                       unsigned workersPerNode) {
  double net = nicShare(workersPerNode, system);
  if (servers > 0 && workers > 0)
    net = std::min(net, system.achievedBandwidth(system.interNode) * servers /
                            workers);
  double pcie = system.achievedBandwidth(system.hostPcie);
  return system.interNode.latencyUs + system.hostPcie.latencyUs +
         bytes / net * 1e6 + bytes / pcie * 1e6;
}

double perf::hostCopyUs(double bytes, const SystemSpec &system,
                        unsigned sharers) {
  double pcie =
      system.achievedBandwidth(system.hostPcie) / std::max(1u, sharers);
  return system.hostPcie.latencyUs + bytes / pcie * 1e6;
}
