//===- CollectiveModel.h - Time of NCCL collectives -------------*- C++ -*-===//
//
// Time of one collective over a group of GPUs of a SystemSpec, the way NCCL
// runs it: the group's topology (describeNcclTopology) feeds NCCL's tuner
// (NcclTuner.h), which picks the (algorithm, protocol) pair of least
// predicted time for the size, as NCCL does for every call; that pair's
// latency and bandwidth then price the call, corrected by the system's
// calibration for the collective where its system file has one
// (SystemSpec::calibration, fitted by bench/collectives/perf-comm-eval).
//
// `bytes` is the per-rank buffer as NCCL counts it: the all_reduce buffer,
// the all_gather output (all ranks' pieces together), the reduce_scatter
// input, the all_to_all send buffer, the send/recv message.
//
// Send/recv and all_to_all are NCCL point-to-point transfers (NcclTuner::p2p);
// an all_to_all moves its pieces to the node's own GPUs over the intra-node
// path and to other nodes' GPUs through the node's NICs at once, the slower
// set bounding it. Broadcast runs NCCL's ring.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COMM_COLLECTIVEMODEL_H
#define PERF_COMM_COLLECTIVEMODEL_H

#include "perf/Comm/NcclTuner.h"
#include "perf/Comm/SystemSpec.h"
#include "perf/Support/KernelDesc.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace perf {

struct CollectiveEstimate {
  double timeUs = 0;
  /// The pair priced (Auto resolved as NCCL's tuner resolves it).
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  CollectiveProtocol protocol = CollectiveProtocol::Simple;
  /// Channels NCCL runs the call on.
  unsigned channels = 0;
  /// NCCL's own predicted time (no calibration).
  double ncclTimeUs = 0;
  /// Latency (us) and algorithm bandwidth (GB/s) behind `timeUs`.
  double latencyUs = 0;
  double bandwidthGBs = 0;
  /// Which calibration priced it ("" for NCCL's figures alone).
  std::string calibration;
};

/// The time of one collective. Errors name the system: a group larger than
/// the system, an algorithm or protocol NCCL does not run for this
/// collective on this group (e.g. NVLS without an NVSwitch).
llvm::Expected<CollectiveEstimate>
estimateCollective(CollectiveKind kind, double bytes,
                   const RankPlacement &placement, const SystemSpec &system,
                   CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto,
                   CollectiveProtocol protocol = CollectiveProtocol::Auto);

/// An all_to_all with uneven splits: `sendBytes[i * n + j]` is what
/// `ranks[i]` sends to `ranks[j]` (n = ranks.size(); the diagonal stays
/// local and costs nothing). Every rank's sends and receives to and from its
/// own node and other nodes run at once; the slowest rank bounds the call.
llvm::Expected<CollectiveEstimate>
estimateAllToAll(llvm::ArrayRef<int> ranks, llvm::ArrayRef<double> sendBytes,
                 const SystemSpec &system);

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
