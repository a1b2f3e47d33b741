//===- CollectiveModel.cpp - Time of NCCL collectives ---------------------===//

#include "perf/Comm/CollectiveModel.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include <algorithm>
#include <cmath>

using namespace perf;

static llvm::Error error(const SystemSpec &s, const llvm::Twine &what) {
  return llvm::createStringError("system '" + s.name + "': " + what);
}

/// A group the system cannot hold is an error, not a smaller group.
static llvm::Error checkFits(const RankPlacement &p, const SystemSpec &s) {
  if (p.numRanks > s.numGpus() || p.numNodes > s.nodes ||
      p.ranksPerNode > s.gpusPerNode)
    return error(s, llvm::Twine("a group of ") + llvm::Twine(p.numRanks) +
                        " ranks on " + llvm::Twine(p.numNodes) +
                        " nodes does not fit its " + llvm::Twine(s.nodes) +
                        " x " + llvm::Twine(s.gpusPerNode) + " GPUs");
  return llvm::Error::success();
}

/// The system's calibration of `kind` on the fabric the group runs over,
/// applied to NCCL's latency and bandwidth of the chosen pair. all_gather,
/// reduce_scatter and broadcast without one of their own take all_reduce's
/// (NCCL's other ring collectives on the same links; not validated, as no
/// measurements of them are at hand).
static void calibrate(CollectiveEstimate &e, CollectiveKind kind,
                      const RankPlacement &p, const SystemSpec &s) {
  Fabric fabric = fabricOf(p, s);
  CollectiveKind from = kind;
  const CollectiveCalibration *c = s.calibrationFor(kind, fabric);
  if (!c && (kind == CollectiveKind::AllGather ||
             kind == CollectiveKind::ReduceScatter ||
             kind == CollectiveKind::Broadcast)) {
    from = CollectiveKind::AllReduce;
    c = s.calibrationFor(from, fabric);
  }
  if (!c)
    return;
  e.latencyUs = c->latencyUs(e.latencyUs);
  e.bandwidthGBs *= c->bandwidthEfficiency;
  e.calibration = (collectiveKindName(from) + "/" + fabricName(fabric)).str();
}

static CollectiveEstimate fromChoice(const NcclChoice &c) {
  CollectiveEstimate e;
  e.algorithm = c.algorithm;
  e.protocol = c.protocol;
  e.channels = c.channels;
  e.ncclTimeUs = c.timeUs;
  e.latencyUs = c.cost.latencyUs;
  e.bandwidthGBs = c.cost.bandwidthGBs;
  return e;
}

/// The time of `bytes` at the estimate's (calibrated) latency and bandwidth.
static void finish(CollectiveEstimate &e, double bytes) {
  e.timeUs = e.latencyUs + bytes / (1000 * e.bandwidthGBs);
}

llvm::Expected<CollectiveEstimate>
perf::estimateCollective(CollectiveKind kind, double bytes,
                         const RankPlacement &p, const SystemSpec &s,
                         CollectiveAlgorithm algorithm,
                         CollectiveProtocol protocol) {
  if (auto err = checkFits(p, s))
    return std::move(err);
  if (!(bytes >= 0))
    return error(s, "a collective of negative or NaN bytes");
  CollectiveEstimate e;
  if (p.numRanks < 2)
    return e;
  NcclTuner tuner(describeNcclTopology(p, s));

  // NCCL runs both as grouped point-to-point transfers.
  if (kind == CollectiveKind::SendRecv || kind == CollectiveKind::AllToAll) {
    bool forced = (algorithm != CollectiveAlgorithm::Auto &&
                   algorithm != CollectiveAlgorithm::Ring) ||
                  protocol != CollectiveProtocol::Auto;
    if (forced)
      return error(s, collectiveKindName(kind) +
                          " runs NCCL point-to-point transfers; no "
                          "algorithm or protocol can be forced");
    if (kind == CollectiveKind::AllToAll) {
      // Even splits: every rank sends bytes / n to each peer.
      unsigned n = p.numRanks;
      llvm::SmallVector<int> ranks;
      // Ranks packed the way the placement says: perNode on each node.
      unsigned perNode = std::max(1u, p.ranksPerNode);
      for (unsigned i = 0; i < n; ++i)
        ranks.push_back(int((i / perNode) * s.gpusPerNode + i % perNode));
      std::vector<double> matrix(size_t(n) * n, bytes / n);
      return estimateAllToAll(ranks, matrix, s);
    }
    e = fromChoice(tuner.p2p(bytes));
    calibrate(e, kind, p, s);
    finish(e, bytes);
    return e;
  }

  // NCCL chooses with its own figures; the calibrated pair is what runs.
  std::optional<NcclChoice> choice =
      tuner.choose(kind, bytes, algorithm, protocol);
  if (!choice)
    return error(s, llvm::Twine("NCCL runs no ") + collectiveKindName(kind) +
                        " with algorithm '" +
                        collectiveAlgorithmName(algorithm) +
                        "' and protocol '" + collectiveProtocolName(protocol) +
                        "' on " + llvm::Twine(p.numRanks) + " ranks over " +
                        llvm::Twine(p.numNodes) + " node(s)");
  e = fromChoice(*choice);
  calibrate(e, kind, p, s);
  finish(e, bytes);
  return e;
}

llvm::Expected<CollectiveEstimate>
perf::estimateAllToAll(llvm::ArrayRef<int> ranks,
                       llvm::ArrayRef<double> sendBytes, const SystemSpec &s) {
  size_t n = ranks.size();
  if (sendBytes.size() != n * n)
    return error(s, llvm::Twine("an all_to_all over ") + llvm::Twine(n) +
                        " ranks needs " + llvm::Twine(n * n) +
                        " split sizes, got " + llvm::Twine(sendBytes.size()));
  for (int r : ranks)
    if (r < 0 || unsigned(r) >= s.numGpus())
      return error(s, llvm::Twine("rank ") + llvm::Twine(r) +
                          " is outside its " + llvm::Twine(s.numGpus()) +
                          " GPUs");
  for (double b : sendBytes)
    if (!(b >= 0))
      return error(s, "an all_to_all split of negative or NaN bytes");
  RankPlacement all = placeRanks(ranks, s);
  if (auto err = checkFits(all, s))
    return std::move(err);
  CollectiveEstimate e;
  e.algorithm = CollectiveAlgorithm::Ring;
  if (all.numRanks < 2)
    return e;

  // Per rank, the bytes it sends and receives inside its node and across
  // (each direction has its own link), and the largest single message on
  // either, which sets NCCL's protocol for those transfers.
  llvm::DenseMap<unsigned, unsigned> perNode;
  for (int r : ranks)
    ++perNode[s.nodeOf(unsigned(r))];
  std::vector<double> localBytes(n), remoteBytes(n);
  double localMessage = 0, remoteMessage = 0;
  for (size_t i = 0; i < n; ++i) {
    double local[2] = {0, 0}, remote[2] = {0, 0}; // send, receive
    for (size_t j = 0; j < n; ++j) {
      if (i == j)
        continue;
      bool sameNode =
          s.nodeOf(unsigned(ranks[i])) == s.nodeOf(unsigned(ranks[j]));
      (sameNode ? local : remote)[0] += sendBytes[i * n + j];
      (sameNode ? local : remote)[1] += sendBytes[j * n + i];
      (sameNode ? localMessage : remoteMessage) = std::max(
          sameNode ? localMessage : remoteMessage, sendBytes[i * n + j]);
    }
    localBytes[i] = std::max(local[0], local[1]);
    remoteBytes[i] = std::max(remote[0], remote[1]);
  }

  // A transfer to a GPU of the same node and one to another node, each as
  // NCCL prices a lone point-to-point transfer (calibrated as send/recv).
  auto pairCost = [&](bool remote, double bytes, bool calibrated) {
    RankPlacement pair;
    pair.numRanks = 2;
    pair.numNodes = remote ? 2 : 1;
    pair.ranksPerNode = remote ? 1 : 2;
    pair.spansDomains = !remote && all.spansDomains;
    CollectiveEstimate c =
        fromChoice(NcclTuner(describeNcclTopology(pair, s)).p2p(bytes));
    if (calibrated)
      calibrate(c, CollectiveKind::SendRecv, pair, s);
    return c;
  };
  // The GPUs of the group on a node share its NICs: each gets nics / GPUs
  // of the one-GPU-per-NIC bandwidth, at most all of it. The slowest rank
  // bounds the call.
  unsigned nics = std::max(1u, s.nicsPerNode);
  bool anyLocal = localMessage > 0, anyRemote = remoteMessage > 0;
  auto price = [&](bool calibrated) {
    CollectiveEstimate local = pairCost(false, localMessage, calibrated);
    CollectiveEstimate remote = pairCost(true, remoteMessage, calibrated);
    double worst = 0;
    bool remoteBound = false;
    for (size_t i = 0; i < n; ++i) {
      double share =
          std::min(1.0, double(nics) / perNode[s.nodeOf(unsigned(ranks[i]))]);
      double localUs = localBytes[i] / (1000 * local.bandwidthGBs);
      double remoteUs = remoteBytes[i] / (1000 * remote.bandwidthGBs * share);
      if (std::max(localUs, remoteUs) > worst) {
        worst = std::max(localUs, remoteUs);
        remoteBound = remoteUs > localUs;
      }
    }
    CollectiveEstimate out = remoteBound ? remote : local;
    out.algorithm = CollectiveAlgorithm::Ring;
    out.latencyUs = std::max(anyLocal ? local.latencyUs : 0.0,
                             anyRemote ? remote.latencyUs : 0.0);
    out.timeUs = out.latencyUs + worst;
    return out;
  };
  e = price(true);
  e.ncclTimeUs = price(false).timeUs;
  return e;
}

/// Each GPU's share of its node's NICs when `local` GPUs of the node send at
/// once; a GPU uses at most one NIC.
static double nicShare(unsigned local, const SystemSpec &s) {
  local = std::max(1u, local);
  return s.achievedBandwidth(s.interNode) * std::min(s.nicsPerNode, local) /
         local;
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
