//===- CollectiveModel.h - Alpha-beta cost of NCCL-style collectives -*- C++
//-*-===//
//
// Time of one collective over a group of GPUs of a SystemSpec, from the
// alpha-beta model of each link it crosses (Thakur, Rabenseifner, Gropp,
// "Optimization of Collective Communication Operations in MPICH", IJHPCA
// 2005): a message of n bytes over a link costs alpha + n / B, with B the
// link's achieved bandwidth. With p ranks:
//
//   ring all_reduce          2(p-1) alpha + 2 (p-1)/p n/B
//   ring all_gather,
//   ring reduce_scatter      (p-1) alpha + (p-1)/p n/B
//   tree all_reduce          2 ceil(log2 p) alpha + 2 n/B   (pipelined double
//                            binary tree: Sanders, Speck, Traeff, "Two-tree
//                            algorithms for full bandwidth broadcast,
//                            reduction and scan", Parallel Computing 2009; the
//                            algorithm NCCL 2.4+ uses across nodes)
//   all_to_all               (p-1) alpha + (p-1)/p n/B
//   broadcast (pipelined)    (p-1) alpha + n/B
//   send/recv                alpha + n/B
//   hierarchical all_reduce  intra-node reduce_scatter of n, inter-node
//                            all_reduce of n/g across nodes, intra-node
//                            all_gather of n (g GPUs per node)
//
// `bytes` is the per-rank buffer as NCCL counts it: the all_reduce buffer,
// the all_gather output (all ranks' pieces together), the reduce_scatter
// input, the all_to_all send buffer, the send/recv message.
//
// Which link: a group inside one NVLink domain uses the intra-node link; one
// spanning domains of a node uses host PCIe; one spanning nodes is bounded by
// each GPU's share of the node's NICs.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COMM_COLLECTIVEMODEL_H
#define PERF_COMM_COLLECTIVEMODEL_H

#include "perf/Comm/SystemSpec.h"
#include "perf/Support/KernelDesc.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace perf {

enum class CollectiveAlgorithm { Ring, Tree, Hierarchical, Auto };

llvm::StringRef collectiveAlgorithmName(CollectiveAlgorithm algorithm);
std::optional<CollectiveAlgorithm>
parseCollectiveAlgorithm(llvm::StringRef name);

/// Where a group of ranks sits on the system.
struct RankPlacement {
  // Not an aggregate, so a braced rank list picks the ArrayRef<int> overloads.
  RankPlacement() {}
  unsigned numRanks = 0;
  /// Distinct nodes the group touches.
  unsigned numNodes = 0;
  /// Most ranks of the group on one node.
  unsigned ranksPerNode = 0;
  /// Whether some node's ranks span more than one NVLink domain.
  bool spansDomains = false;
};

/// Placement of explicit global ranks (rank r on node r / gpusPerNode).
RankPlacement placeRanks(llvm::ArrayRef<int> ranks, const SystemSpec &system);
/// The same for a `group` attribute of the perf dialect's collectives.
RankPlacement placeGroup(llvm::ArrayRef<int64_t> ranks,
                         const SystemSpec &system);
/// `count` ranks filling nodes in order with at most `perNode` per node
/// (0: the node's GPU count), the way NCCL tests and launchers pack them.
RankPlacement packRanks(unsigned count, const SystemSpec &system,
                        unsigned perNode = 0);

struct CollectiveEstimate {
  double timeUs = 0;
  /// The algorithm priced (Auto resolved to the cheapest applicable one).
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
};

CollectiveEstimate
estimateCollective(CollectiveKind kind, double bytes,
                   const RankPlacement &placement, const SystemSpec &system,
                   CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto);

double
collectiveTimeUs(CollectiveKind kind, double bytes, llvm::ArrayRef<int> ranks,
                 const SystemSpec &system,
                 CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto);
double
collectiveTimeUs(CollectiveKind kind, double bytes,
                 const RankPlacement &placement, const SystemSpec &system,
                 CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto);

/// One transfer of `bytes` between a worker GPU and a parameter server
/// (PS/Worker in the Alibaba-PAI study): the message crosses the network and
/// the worker's host PCIe one after the other (store and forward through host
/// memory, as Wang et al. price T_w = S_w / B_eth + S_w / B_pcie). The
/// network share of a worker is the smaller of its share of its server's NICs
/// (`workersPerNode` GPUs sending at once) and its share of the PS tier
/// (`servers` NICs serving `workers` workers).
double parameterServerTransferUs(double bytes, const SystemSpec &system,
                                 unsigned workers, unsigned servers,
                                 unsigned workersPerNode);

/// A host-to-device (or back) copy of `bytes` over the host PCIe link when
/// `sharers` GPUs of the server copy at the same time.
double hostCopyUs(double bytes, const SystemSpec &system, unsigned sharers);

} // namespace perf

#endif // PERF_COMM_COLLECTIVEMODEL_H
