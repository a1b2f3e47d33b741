//===- NcclTuner.h - NCCL's collective cost model and tuner -----*- C++ -*-===//
//
// How NCCL prices and picks a collective, written from its published
// formulation (NVIDIA/nccl, src/graph/tuning.cc: ncclTopoTuneModel and
// ncclTopoGetAlgoTime; src/enqueue.cc: topoGetAlgoInfo). For every algorithm
// (ring, tree, CollNet direct/chain, NVLS, NVLS-tree, PAT) and protocol (LL,
// LL128, Simple) NCCL keeps a latency and a bandwidth:
//
//   latency   = base[algorithm][protocol] + steps x hop latency
//   busBw     = channels x per-channel bandwidth, capped per protocol
//   algBw     = busBw x (ranks / steps) for ring-like algorithms, / 2 for
//               trees (NCCL's "bus" to "algorithm" bandwidth conversion)
//   time (us) = latency + bytes / (1000 x algBw[GB/s])
//
// and the tuner runs, for every call, the enabled (algorithm, protocol) pair
// of least time. `bytes` is what NCCL calls nBytes: the all_reduce buffer,
// the all_gather output, the reduce_scatter input, the broadcast buffer.
//
// The inputs NCCL takes from its topology search (channels and per-channel
// bandwidth of each algorithm's graph, whether the intra-node path is NVLink)
// are an NcclTopology; describeNcclTopology derives one from a SystemSpec
// the way src/graph/search.cc does, simplified as its comment says.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COMM_NCCLTUNER_H
#define PERF_COMM_NCCLTUNER_H

#include "perf/Comm/SystemSpec.h"
#include "perf/Support/KernelDesc.h"
#include "llvm/ADT/StringRef.h"
#include <array>
#include <optional>

namespace perf {

/// NCCL's algorithms, in NCCL's order (NCCL_ALGO_TREE = 0 ... PAT = 6), and
/// Auto (the tuner's choice).
enum class CollectiveAlgorithm {
  Tree,
  Ring,
  CollNetDirect,
  CollNetChain,
  NVLS,
  NVLSTree,
  PAT,
  Auto,
};
constexpr unsigned kNumNcclAlgorithms = 7;

/// NCCL's protocols, in NCCL's order (NCCL_PROTO_LL = 0 ... SIMPLE = 2).
enum class CollectiveProtocol { LL, LL128, Simple, Auto };
constexpr unsigned kNumNcclProtocols = 3;

/// "tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree",
/// "pat", "auto".
llvm::StringRef collectiveAlgorithmName(CollectiveAlgorithm algorithm);
/// NCCL's spellings too ("CollNetDirect", "NVLSTree"); case, '-' and '_'
/// ignored.
std::optional<CollectiveAlgorithm>
parseCollectiveAlgorithm(llvm::StringRef name);
/// "LL", "LL128", "Simple", "auto".
llvm::StringRef collectiveProtocolName(CollectiveProtocol protocol);
std::optional<CollectiveProtocol> parseCollectiveProtocol(llvm::StringRef name);

/// The GPU generation NCCL indexes its tables by (NCCL_*_COMPCAP_IDX).
enum class NcclArch { Volta, Ampere, Hopper, Blackwell };

/// The hardware class of a path (NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET).
enum class NcclHw { NVLink, PCI, Net };

/// One algorithm's graph from NCCL's topology search: how many channels and
/// each channel's bandwidth (GB/s) inside a node and across nodes.
struct NcclGraph {
  unsigned channels = 0;
  double bwIntra = 0;
  double bwInter = 0;
};

/// What ncclTopoTuneModel reads from the communicator.
struct NcclTopology {
  unsigned nRanks = 0;
  unsigned nNodes = 0;
  /// CUDA compute capability x 10 (80 for A100).
  unsigned compCap = 80;
  /// Intra-node path of the graphs: NVLink, else PCI.
  NcclHw intraHw = NcclHw::NVLink;
  /// Graphs, indexed by CollectiveAlgorithm.
  std::array<NcclGraph, kNumNcclAlgorithms> graphs;
  /// Extra network latency of the net plugin (0 for InfiniBand and sockets).
  double latencyInter = 0;
  /// LL128 passes NCCL's default enable checks (NVLink inside the node, NIC
  /// on the GPU's PCIe switch across nodes, SM70 or newer).
  bool ll128 = true;
  /// NVLink SHARP (NVSwitch and SM90 or newer).
  bool nvls = false;
  /// In-network reduction (SHARP), NCCL_COLLNET_ENABLE.
  bool collNet = false;
  /// The node's GPUs sit behind an NVSwitch (CollNet direct needs one).
  bool nvSwitch = false;
  /// AMD host CPU (selects llMaxBws' row and the 2 us network overhead).
  bool amdCpu = false;

  NcclArch arch() const;
  /// Ranks per node (NCCL's ppn, a float).
  double ppn() const { return nNodes ? double(nRanks) / nNodes : 0; }
};

/// The topology NCCL would find for `placement` on `system`. Simplified from
/// src/graph/search.cc (ncclTopoCompute, ncclTopoDupChannels): a ring or tree
/// channel runs at the fastest speed of NCCL's speed array (speedArrayIntra
/// or, across nodes, speedArrayInter; the SM90/SM100 arrays on those GPUs)
/// that the bottleneck path carries, as many channels as the GPU's links (or
/// the NICs a node's GPUs reach) hold at that speed, up to MAXCHANNELS / 2;
/// then channels are doubled at half the speed where ncclTopoDupChannels
/// would. Link bandwidths are converted to NCCL's figures (src/graph/topo.h):
/// NVLink 20 GB/s per 25 GB/s link (20.6 on SM90, 12 per 14.06 GB/s link on
/// SM86), PCIe at width x rate / 80 (12/24/48 GB/s for gen3/4/5 x16, of
/// 15.75/31.5/63 nominal), NICs at their line rate.
NcclTopology describeNcclTopology(const RankPlacement &placement,
                                  const SystemSpec &system);

/// A latency (us) and an algorithm bandwidth (GB/s), NCCL's
/// comm->latencies / comm->bandwidths for one (function, algorithm,
/// protocol).
struct NcclCost {
  double latencyUs = 0;
  double bandwidthGBs = 0;
  /// bytes / algorithm time: the factor from algBw to busBw.
  double busFactor = 1;
};

/// One priced choice.
struct NcclChoice {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  CollectiveProtocol protocol = CollectiveProtocol::Simple;
  /// NCCL's predicted time, us (ncclTopoGetAlgoTime).
  double timeUs = 0;
  /// The latency and bandwidth that time came from, after the size-dependent
  /// corrections (tree correction factors, ring plateau).
  NcclCost cost;
  /// Channels the kernel runs on for this size (topoGetAlgoInfo's tuning).
  unsigned channels = 0;
};

/// NCCL's tuning tables for one communicator.
class NcclTuner {
public:
  explicit NcclTuner(const NcclTopology &topology);

  const NcclTopology &topology() const { return topo; }

  /// The latency and bandwidth of a pair, or nullopt when NCCL would not
  /// run it (bandwidth 0: not applicable to the function, or disabled).
  /// Send/recv is not one of NCCL's tuned functions; see p2pCost.
  std::optional<NcclCost> cost(CollectiveKind kind,
                               CollectiveAlgorithm algorithm,
                               CollectiveProtocol protocol) const;

  /// ncclTopoGetAlgoTime for `bytes`: the latency and bandwidth after the
  /// size-dependent corrections, or nullopt where cost() is.
  std::optional<NcclCost> sizedCost(CollectiveKind kind,
                                    CollectiveAlgorithm algorithm,
                                    CollectiveProtocol protocol,
                                    double bytes) const;

  /// The pair of least time among the enabled ones (`algorithm` / `protocol`
  /// other than Auto restrict the search, as NCCL_ALGO / NCCL_PROTO do), or
  /// nullopt when none runs.
  std::optional<NcclChoice>
  choose(CollectiveKind kind, double bytes,
         CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto,
         CollectiveProtocol protocol = CollectiveProtocol::Auto) const;

  /// A point-to-point transfer between two ranks of the communicator, for
  /// send/recv and the pieces of an all_to_all (NCCL groups them as sends
  /// and receives). NCCL has no tuning model for them; this prices one step
  /// of its ring on the same path: base + one hop latency of the ring's
  /// protocol, the ring's bandwidth (LL: halved and capped by llMaxBw), LL up
  /// to NCCL_P2P_LL_THRESHOLD (16384 B per channel, src/enqueue.cc) and
  /// Simple above.
  NcclChoice p2p(double bytes) const;

private:
  NcclTopology topo;
  // [function][algorithm][protocol]; functions are NCCL's: broadcast,
  // reduce, all_gather, reduce_scatter, all_reduce.
  double latencies[5][kNumNcclAlgorithms][kNumNcclProtocols] = {};
  double bandwidths[5][kNumNcclAlgorithms][kNumNcclProtocols] = {};
  double busFactors[5][kNumNcclAlgorithms][kNumNcclProtocols] = {};
};

} // namespace perf

#endif // PERF_COMM_NCCLTUNER_H
