//===- SystemSpec.h - A cluster of GPUs and the links between them -*- C++
//-*-===//
//
// What the communication cost models need to know about a machine: how many
// nodes, how many GPUs in each, and the bandwidth and latency of the links a
// collective can cross (the intra-node GPU link, the inter-node network, the
// host PCIe link). Bandwidths are per direction; the intra-node figure is per
// GPU, the inter-node figure per NIC. Achieved bandwidth is the nominal figure
// times an efficiency factor (70% by default, the utilization assumption of
// the Alibaba-PAI characterization study).
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COMM_SYSTEMSPEC_H
#define PERF_COMM_SYSTEMSPEC_H

#include "perf/Support/GpuSpec.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <optional>
#include <string>

namespace perf {

enum class LinkKind {
  NVLink2,
  NVLink3,
  NVLink4,
  PCIe3,
  PCIe4,
  PCIe5,
  Ethernet10,
  Ethernet25,
  Ethernet100,
  Ethernet200,
  Ethernet400,
  InfiniBandEDR,
  InfiniBandHDR,
  InfiniBandNDR,
  /// Bandwidth and latency given explicitly.
  Custom,
};

/// Spelling used in JSON ("nvlink3", "pcie4", "ethernet25", "ib-hdr"...).
llvm::StringRef linkKindName(LinkKind kind);
std::optional<LinkKind> parseLinkKind(llvm::StringRef name);

struct LinkSpec {
  LinkKind kind = LinkKind::Custom;
  /// Nominal bandwidth per direction in bytes/s: per GPU for GPU links, per
  /// NIC for the network.
  double bandwidth = 0;
  /// One-message latency (the alpha of the alpha-beta model) in us.
  double latencyUs = 0;
  /// Overrides SystemSpec::efficiency for this link when set.
  std::optional<double> efficiency;
};

/// Typical figures of a link kind: NVLink2/3/4 150/300/450 GB/s per GPU,
/// PCIe gen3/4/5 x16 15.75/31.5/63 GB/s, Ethernet and InfiniBand at their line
/// rate, with latencies typical of NCCL over each.
LinkSpec defaultLink(LinkKind kind);

struct SystemSpec {
  std::string name;
  /// Where the figures come from.
  std::string source;
  unsigned nodes = 1;
  unsigned gpusPerNode = 1;
  GpuSpec gpu;
  /// The GPU-to-GPU link inside a node.
  LinkSpec intraNode;
  /// GPUs fully connected by `intraNode`; GPUs of different domains of one
  /// node talk over `hostPcie` (NVLink-bridged pairs in PCIe servers). Zero
  /// means the whole node.
  unsigned intraNodeDomain = 0;
  /// The network between nodes; `nicsPerNode` NICs of `interNode.bandwidth`.
  LinkSpec interNode;
  unsigned nicsPerNode = 1;
  /// GPU-to-host link (also the path between GPUs without a direct link).
  LinkSpec hostPcie;
  /// Fraction of nominal bandwidth achieved.
  double efficiency = 0.7;

  unsigned numGpus() const { return nodes * gpusPerNode; }
  unsigned domainSize() const {
    return intraNodeDomain ? intraNodeDomain : gpusPerNode;
  }
  /// Global ranks are laid out node by node: rank r is on node r / gpusPerNode.
  unsigned nodeOf(unsigned rank) const { return rank / gpusPerNode; }
  /// Achieved bandwidth of a link in bytes/s.
  double achievedBandwidth(const LinkSpec &link) const {
    return link.bandwidth * link.efficiency.value_or(efficiency);
  }

  /// Checks what the cost models divide by.
  llvm::Error validate() const;
};

/// Built-in systems: "dgx-a100" (8x A100-SXM4-80GB, NVLink3, 8x HDR 200 Gb/s
/// InfiniBand), "dgx-h100" (8x H100-SXM5, NVLink4, 8x NDR 400 Gb/s),
/// "pcie-a100" (8x A100-PCIe-80GB on PCIe gen4, 100 GbE), "pai-v100-25gbe"
/// (the PAI testbed: 64 servers of 8x V100, 50 GB/s NVLink, 10 GB/s PCIe,
/// 25 Gb/s Ethernet).
llvm::ArrayRef<SystemSpec> systemPresets();
const SystemSpec *lookupSystemPreset(llvm::StringRef name);

/// Parses a system description. Keys: name, source, base (a preset the rest
/// overrides), nodes, gpus_per_node, gpu (catalog name or a device object as
/// in GpuSpec.h), intra_node / inter_node / host_pcie (objects with kind,
/// bandwidth_gbs, latency_us, efficiency), intra_node_domain, nics_per_node,
/// efficiency. An unknown key or a value of the wrong type is an error naming
/// `origin` and the JSON path.
llvm::Expected<SystemSpec> parseSystemSpec(const llvm::json::Value &value,
                                           llvm::StringRef origin = "system");
/// A preset name, or a JSON file (errors name the file and line).
llvm::Expected<SystemSpec> loadSystemSpec(llvm::StringRef presetOrPath);

llvm::json::Value toJson(const SystemSpec &spec);

} // namespace perf

#endif // PERF_COMM_SYSTEMSPEC_H
