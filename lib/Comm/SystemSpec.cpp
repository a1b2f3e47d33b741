//===- SystemSpec.cpp - System description, presets and JSON --------------===//
//
// Link figures: NVLink per-GPU bandwidth from the V100/A100/H100 datasheets
// (300/600/900 GB/s bidirectional), PCIe x16 per direction from the PCI-SIG
// rates after 128b/130b encoding, network links at line rate. Latencies are
// typical NCCL one-hop figures (a few us on NVLink/PCIe and InfiniBand, tens
// of us over TCP on Ethernet); calibrate them per system where it matters
// (docs/distributed.md shows how and what it buys).
//
//===----------------------------------------------------------------------===//

#include "perf/Comm/SystemSpec.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include <vector>

using namespace perf;

static constexpr double GB = 1e9;

llvm::StringRef perf::linkKindName(LinkKind kind) {
  switch (kind) {
  case LinkKind::NVLink2:
    return "nvlink2";
  case LinkKind::NVLink3:
    return "nvlink3";
  case LinkKind::NVLink4:
    return "nvlink4";
  case LinkKind::PCIe3:
    return "pcie3";
  case LinkKind::PCIe4:
    return "pcie4";
  case LinkKind::PCIe5:
    return "pcie5";
  case LinkKind::Ethernet10:
    return "ethernet10";
  case LinkKind::Ethernet25:
    return "ethernet25";
  case LinkKind::Ethernet100:
    return "ethernet100";
  case LinkKind::Ethernet200:
    return "ethernet200";
  case LinkKind::Ethernet400:
    return "ethernet400";
  case LinkKind::InfiniBandEDR:
    return "ib-edr";
  case LinkKind::InfiniBandHDR:
    return "ib-hdr";
  case LinkKind::InfiniBandNDR:
    return "ib-ndr";
  case LinkKind::Custom:
    return "custom";
  }
  return "custom";
}

std::optional<LinkKind> perf::parseLinkKind(llvm::StringRef name) {
  auto kind = llvm::StringSwitch<std::optional<LinkKind>>(name.lower())
                  .Case("nvlink2", LinkKind::NVLink2)
                  .Case("nvlink3", LinkKind::NVLink3)
                  .Case("nvlink4", LinkKind::NVLink4)
                  .Case("pcie3", LinkKind::PCIe3)
                  .Case("pcie4", LinkKind::PCIe4)
                  .Case("pcie5", LinkKind::PCIe5)
                  .Case("ethernet10", LinkKind::Ethernet10)
                  .Case("ethernet25", LinkKind::Ethernet25)
                  .Case("ethernet100", LinkKind::Ethernet100)
                  .Case("ethernet200", LinkKind::Ethernet200)
                  .Case("ethernet400", LinkKind::Ethernet400)
                  .Case("ib-edr", LinkKind::InfiniBandEDR)
                  .Case("infiniband-edr", LinkKind::InfiniBandEDR)
                  .Case("ib-hdr", LinkKind::InfiniBandHDR)
                  .Case("infiniband-hdr", LinkKind::InfiniBandHDR)
                  .Case("ib-ndr", LinkKind::InfiniBandNDR)
                  .Case("infiniband-ndr", LinkKind::InfiniBandNDR)
                  .Case("custom", LinkKind::Custom)
                  .Default(std::nullopt);
  return kind;
}

LinkSpec perf::defaultLink(LinkKind kind) {
  auto make = [&](double gbs, double latencyUs) {
    LinkSpec l;
    l.kind = kind;
    l.bandwidth = gbs * GB;
    l.latencyUs = latencyUs;
    return l;
  };
  switch (kind) {
  case LinkKind::NVLink2:
    return make(150, 2);
  case LinkKind::NVLink3:
    return make(300, 2);
  case LinkKind::NVLink4:
    return make(450, 2);
  case LinkKind::PCIe3:
    return make(15.75, 4);
  case LinkKind::PCIe4:
    return make(31.5, 4);
  case LinkKind::PCIe5:
    return make(63, 4);
  case LinkKind::Ethernet10:
    return make(1.25, 25);
  case LinkKind::Ethernet25:
    return make(3.125, 25);
  case LinkKind::Ethernet100:
    return make(12.5, 15);
  case LinkKind::Ethernet200:
    return make(25, 15);
  case LinkKind::Ethernet400:
    return make(50, 15);
  case LinkKind::InfiniBandEDR:
    return make(12.5, 5);
  case LinkKind::InfiniBandHDR:
    return make(25, 5);
  case LinkKind::InfiniBandNDR:
    return make(50, 5);
  case LinkKind::Custom:
    return make(0, 0);
  }
  return make(0, 0);
}

llvm::Error SystemSpec::validate() const {
  auto bad = [&](const llvm::Twine &what) {
    return llvm::createStringError("system '" + name + "': " + what);
  };
  if (nodes == 0 || gpusPerNode == 0)
    return bad("nodes and gpus_per_node must be positive");
  if (efficiency <= 0 || efficiency > 1)
    return bad("efficiency must be in (0, 1]");
  if (intraNodeDomain > gpusPerNode)
    return bad("intra_node_domain exceeds gpus_per_node");
  if (nicsPerNode == 0 && nodes > 1)
    return bad("nics_per_node must be positive on a multi-node system");
  struct Named {
    const char *name;
    const LinkSpec *link;
    bool needed;
  } links[] = {{"intra_node", &intraNode, gpusPerNode > 1},
               {"inter_node", &interNode, nodes > 1},
               {"host_pcie", &hostPcie, domainSize() < gpusPerNode}};
  for (const Named &l : links) {
    if (l.link->latencyUs < 0)
      return bad(llvm::Twine(l.name) + ": negative latency");
    double eff = l.link->efficiency.value_or(efficiency);
    if (eff <= 0 || eff > 1)
      return bad(llvm::Twine(l.name) + ": efficiency must be in (0, 1]");
    if (l.needed && l.link->bandwidth <= 0)
      return bad(llvm::Twine(l.name) + ": bandwidth must be positive");
  }
  return llvm::Error::success();
}

static SystemSpec makePreset(const char *name, const char *source,
                             const char *gpu, unsigned nodes,
                             unsigned gpusPerNode, LinkSpec intra,
                             LinkSpec inter, unsigned nics, LinkSpec pcie) {
  SystemSpec s;
  s.name = name;
  s.source = source;
  s.nodes = nodes;
  s.gpusPerNode = gpusPerNode;
  if (const GpuSpec *g = lookupGpu(gpu))
    s.gpu = *g;
  s.intraNode = intra;
  s.interNode = inter;
  s.nicsPerNode = nics;
  s.hostPcie = pcie;
  return s;
}

llvm::ArrayRef<SystemSpec> perf::systemPresets() {
  static const std::vector<SystemSpec> presets = [] {
    std::vector<SystemSpec> v;
    v.push_back(makePreset(
        "dgx-a100",
        "NVIDIA DGX A100 datasheet: 8x A100-SXM4-80GB, NVLink3 via NVSwitch "
        "(600 GB/s bidirectional per GPU), 8x ConnectX-6 HDR 200 Gb/s",
        "A100-SXM4-80GB", 1, 8, defaultLink(LinkKind::NVLink3),
        defaultLink(LinkKind::InfiniBandHDR), 8, defaultLink(LinkKind::PCIe4)));
    v.push_back(makePreset(
        "dgx-h100",
        "NVIDIA DGX H100 datasheet: 8x H100-SXM5, NVLink4 via NVSwitch "
        "(900 GB/s bidirectional per GPU), 8x ConnectX-7 NDR 400 Gb/s",
        "H100-SXM5-80GB", 1, 8, defaultLink(LinkKind::NVLink4),
        defaultLink(LinkKind::InfiniBandNDR), 8, defaultLink(LinkKind::PCIe5)));
    v.push_back(makePreset("pcie-a100",
                           "8x A100-PCIe-80GB without NVLink on a PCIe gen4 "
                           "switch, one 100 GbE NIC",
                           "A100-PCIe-80GB", 1, 8, defaultLink(LinkKind::PCIe4),
                           defaultLink(LinkKind::Ethernet100), 1,
                           defaultLink(LinkKind::PCIe4)));
    LinkSpec paiNvlink = defaultLink(LinkKind::NVLink2);
    paiNvlink.bandwidth = 50 * GB;
    LinkSpec paiPcie = defaultLink(LinkKind::PCIe3);
    paiPcie.bandwidth = 10 * GB;
    v.push_back(makePreset(
        "pai-v100-25gbe",
        "Wang et al., Characterizing Deep Learning Training Workloads on "
        "Alibaba-PAI, Sec. IV testbed: 64 servers of 8x V100, 50 GB/s NVLink, "
        "10 GB/s PCIe, 25 Gb/s Ethernet, 70% efficiency",
        "V100", 64, 8, paiNvlink, defaultLink(LinkKind::Ethernet25), 1,
        paiPcie));
    return v;
  }();
  return presets;
}

static std::string foldName(llvm::StringRef name) {
  std::string out;
  for (char c : name)
    if (c != '-' && c != '_' && c != ' ')
      out.push_back(llvm::toLower(c));
  return out;
}

const SystemSpec *perf::lookupSystemPreset(llvm::StringRef name) {
  std::string key = foldName(name);
  for (const SystemSpec &s : systemPresets())
    if (foldName(s.name) == key)
      return &s;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

namespace {
/// Reads one JSON object, recording the first error with its path.
class Reader {
public:
  explicit Reader(llvm::StringRef origin) : origin(origin.str()) {}

  llvm::Error error(const llvm::Twine &path, const llvm::Twine &what) {
    return llvm::createStringError(origin + ": at '" + path + "': " + what);
  }

  llvm::Error number(const llvm::json::Value &v, const llvm::Twine &path,
                     double &out) {
    if (auto d = v.getAsNumber()) {
      out = *d;
      return llvm::Error::success();
    }
    return error(path, "expected a number");
  }

  llvm::Error count(const llvm::json::Value &v, const llvm::Twine &path,
                    unsigned &out) {
    auto i = v.getAsInteger();
    if (!i || *i < 0)
      return error(path, "expected a non-negative integer");
    out = unsigned(*i);
    return llvm::Error::success();
  }

  llvm::Error link(const llvm::json::Value &v, const std::string &path,
                   LinkSpec &out) {
    const llvm::json::Object *o = v.getAsObject();
    if (!o)
      return error(path, "expected an object");
    // The kind first: its defaults are what the other keys override.
    if (const llvm::json::Value *k = o->get("kind")) {
      auto s = k->getAsString();
      if (!s)
        return error(path + ".kind", "expected a string");
      auto kind = parseLinkKind(*s);
      if (!kind)
        return error(path + ".kind", "unknown link kind '" + *s + "'");
      out = defaultLink(*kind);
    }
    for (const auto &kv : *o) {
      llvm::StringRef key = kv.first;
      std::string at = path + "." + key.str();
      double d = 0;
      if (key == "kind")
        continue;
      if (key == "bandwidth_gbs") {
        if (auto e = number(kv.second, at, d))
          return e;
        out.bandwidth = d * GB;
      } else if (key == "latency_us") {
        if (auto e = number(kv.second, at, d))
          return e;
        out.latencyUs = d;
      } else if (key == "efficiency") {
        if (auto e = number(kv.second, at, d))
          return e;
        out.efficiency = d;
      } else {
        return error(at, "unknown key '" + key + "'");
      }
    }
    return llvm::Error::success();
  }

  std::string origin;
};
} // namespace

llvm::Expected<SystemSpec> perf::parseSystemSpec(const llvm::json::Value &value,
                                                 llvm::StringRef origin) {
  Reader r(origin);
  const llvm::json::Object *o = value.getAsObject();
  if (!o)
    return r.error("$", "expected an object");
  SystemSpec s;
  if (const llvm::json::Value *base = o->get("base")) {
    auto name = base->getAsString();
    if (!name)
      return r.error("base", "expected a string");
    const SystemSpec *preset = lookupSystemPreset(*name);
    if (!preset)
      return r.error("base", "unknown system preset '" + *name + "'");
    s = *preset;
  }
  for (const auto &kv : *o) {
    llvm::StringRef key = kv.first;
    const llvm::json::Value &v = kv.second;
    double d = 0;
    if (key == "base")
      continue;
    if (key == "name" || key == "source") {
      auto str = v.getAsString();
      if (!str)
        return r.error(key, "expected a string");
      (key == "name" ? s.name : s.source) = str->str();
    } else if (key == "nodes") {
      if (auto e = r.count(v, key, s.nodes))
        return std::move(e);
    } else if (key == "gpus_per_node") {
      if (auto e = r.count(v, key, s.gpusPerNode))
        return std::move(e);
    } else if (key == "intra_node_domain") {
      if (auto e = r.count(v, key, s.intraNodeDomain))
        return std::move(e);
    } else if (key == "nics_per_node") {
      if (auto e = r.count(v, key, s.nicsPerNode))
        return std::move(e);
    } else if (key == "efficiency") {
      if (auto e = r.number(v, key, d))
        return std::move(e);
      s.efficiency = d;
    } else if (key == "gpu") {
      if (auto name = v.getAsString()) {
        const GpuSpec *g = lookupGpu(*name);
        if (!g)
          return r.error(key, "unknown GPU '" + *name + "'");
        s.gpu = *g;
      } else if (v.getAsObject()) {
        auto g = parseGpuSpec(v);
        if (!g)
          return r.error(key, llvm::toString(g.takeError()));
        s.gpu = std::move(*g);
      } else {
        return r.error(key, "expected a GPU name or a device object");
      }
    } else if (key == "intra_node" || key == "inter_node" ||
               key == "host_pcie") {
      LinkSpec &link = key == "intra_node"   ? s.intraNode
                       : key == "inter_node" ? s.interNode
                                             : s.hostPcie;
      if (auto e = r.link(v, key.str(), link))
        return std::move(e);
    } else {
      return r.error(key, "unknown key '" + key + "'");
    }
  }
  if (s.name.empty())
    return r.error("name", "missing system name");
  if (auto e = s.validate())
    return llvm::createStringError(origin + ": " +
                                   llvm::toString(std::move(e)));
  return s;
}

/// The line of the first occurrence of `"key"` in `text`, to point a reader at
/// the offending entry (llvm::json keeps no source locations).
static unsigned lineOfKey(llvm::StringRef text, llvm::StringRef message) {
  size_t q1 = message.find("'");
  if (q1 == llvm::StringRef::npos)
    return 0;
  size_t q2 = message.find("'", q1 + 1);
  llvm::StringRef path = message.slice(q1 + 1, q2);
  llvm::StringRef key =
      path.rsplit('.').second.empty() ? path : path.rsplit('.').second;
  size_t at = text.find(("\"" + key + "\"").str());
  if (at == llvm::StringRef::npos)
    return 0;
  return 1 + text.take_front(at).count('\n');
}

llvm::Expected<SystemSpec> perf::loadSystemSpec(llvm::StringRef presetOrPath) {
  if (const SystemSpec *preset = lookupSystemPreset(presetOrPath))
    return *preset;
  auto buf = llvm::MemoryBuffer::getFile(presetOrPath);
  if (!buf)
    return llvm::createStringError(
        presetOrPath +
        ": not a system preset and not readable: " + buf.getError().message());
  llvm::StringRef text = (*buf)->getBuffer();
  auto json = llvm::json::parse(text);
  if (!json)
    return llvm::createStringError(presetOrPath + ": " +
                                   llvm::toString(json.takeError()));
  auto spec = parseSystemSpec(*json, presetOrPath);
  if (!spec) {
    std::string msg = llvm::toString(spec.takeError());
    if (unsigned line = lineOfKey(text, msg.substr(presetOrPath.size())))
      msg = presetOrPath.str() + ":" + std::to_string(line) +
            msg.substr(presetOrPath.size());
    return llvm::createStringError(msg);
  }
  return spec;
}

static llvm::json::Value linkToJson(const LinkSpec &l) {
  llvm::json::Object o{{"kind", linkKindName(l.kind)},
                       {"bandwidth_gbs", l.bandwidth / GB},
                       {"latency_us", l.latencyUs}};
  if (l.efficiency)
    o["efficiency"] = *l.efficiency;
  return o;
}

llvm::json::Value perf::toJson(const SystemSpec &s) {
  llvm::json::Object o{{"name", s.name},
                       {"nodes", int64_t(s.nodes)},
                       {"gpus_per_node", int64_t(s.gpusPerNode)},
                       {"intra_node", linkToJson(s.intraNode)},
                       {"intra_node_domain", int64_t(s.intraNodeDomain)},
                       {"inter_node", linkToJson(s.interNode)},
                       {"nics_per_node", int64_t(s.nicsPerNode)},
                       {"host_pcie", linkToJson(s.hostPcie)},
                       {"efficiency", s.efficiency}};
  if (!s.source.empty())
    o["source"] = s.source;
  // A catalog GPU is written by name; a custom or modified one inline.
  const GpuSpec *known = lookupGpu(s.gpu.name);
  if (known && toJson(*known) == toJson(s.gpu))
    o["gpu"] = s.gpu.name;
  else
    o["gpu"] = toJson(s.gpu);
  return o;
}
