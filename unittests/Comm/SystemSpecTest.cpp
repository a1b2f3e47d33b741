#include "perf/Comm/SystemSpec.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace perf;

TEST(SystemSpec, PresetsDescribeTheirDatasheets) {
  const SystemSpec *a100 = lookupSystemPreset("DGX_A100");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(a100->gpu.name, "A100-SXM4-80GB");
  EXPECT_EQ(a100->gpusPerNode, 8u);
  EXPECT_EQ(a100->intraNode.kind, LinkKind::NVLink3);
  // 600 GB/s bidirectional NVLink per A100 is 300 GB/s each way.
  EXPECT_DOUBLE_EQ(a100->intraNode.bandwidth, 300e9);
  // 8 HDR NICs of 200 Gb/s = 25 GB/s each.
  EXPECT_EQ(a100->nicsPerNode, 8u);
  EXPECT_DOUBLE_EQ(a100->interNode.bandwidth, 25e9);
  EXPECT_DOUBLE_EQ(a100->efficiency, 0.7);
  // 0.7 * 300 GB/s achieved.
  EXPECT_DOUBLE_EQ(a100->achievedBandwidth(a100->intraNode), 210e9);

  const SystemSpec *h100 = lookupSystemPreset("dgx-h100");
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(h100->intraNode.bandwidth, 450e9);
  EXPECT_DOUBLE_EQ(h100->interNode.bandwidth, 50e9);

  const SystemSpec *pai = lookupSystemPreset("pai-v100-25gbe");
  ASSERT_NE(pai, nullptr);
  EXPECT_EQ(pai->numGpus(), 512u);
  // 25 Gb/s Ethernet = 3.125 GB/s.
  EXPECT_DOUBLE_EQ(pai->interNode.bandwidth, 3.125e9);
  EXPECT_NE(lookupSystemPreset("pcie-a100"), nullptr);
  EXPECT_EQ(lookupSystemPreset("dgx-b900"), nullptr);
  for (const SystemSpec &s : systemPresets())
    EXPECT_FALSE(bool(s.validate())) << s.name;
}

TEST(SystemSpec, JsonRoundTrips) {
  for (const SystemSpec &s : systemPresets()) {
    auto back = parseSystemSpec(toJson(s));
    ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
    EXPECT_EQ(toJson(*back), toJson(s)) << s.name;
  }
}

TEST(SystemSpec, JsonOverridesAPreset) {
  auto json = llvm::json::parse(R"({
    "name": "four-dgx", "base": "dgx-a100", "nodes": 4,
    "inter_node": {"kind": "ethernet100", "latency_us": 30},
    "efficiency": 0.8})");
  ASSERT_TRUE(bool(json));
  auto s = parseSystemSpec(*json);
  ASSERT_TRUE(bool(s)) << llvm::toString(s.takeError());
  EXPECT_EQ(s->name, "four-dgx");
  EXPECT_EQ(s->numGpus(), 32u);
  EXPECT_EQ(s->interNode.kind, LinkKind::Ethernet100);
  EXPECT_DOUBLE_EQ(s->interNode.bandwidth, 12.5e9);
  EXPECT_DOUBLE_EQ(s->interNode.latencyUs, 30);
  EXPECT_DOUBLE_EQ(s->efficiency, 0.8);
  EXPECT_EQ(s->gpu.name, "A100-SXM4-80GB");
}

static std::string errorOf(llvm::StringRef text) {
  auto json = llvm::json::parse(text);
  if (!json)
    return "unparsable";
  auto s = parseSystemSpec(*json, "sys.json");
  if (s)
    return "";
  return llvm::toString(s.takeError());
}

TEST(SystemSpec, ErrorsNameTheOffendingKey) {
  EXPECT_EQ(errorOf(R"({"name": "x", "base": "dgx-a100", "nodez": 2})"),
            "sys.json: at 'nodez': unknown key 'nodez'");
  EXPECT_EQ(errorOf(R"({"name": "x", "base": "dgx-a100", "nodes": "two"})"),
            "sys.json: at 'nodes': expected a non-negative integer");
  EXPECT_EQ(errorOf(R"({"name": "x", "base": "dgx-a100",
                        "inter_node": {"bandwith_gbs": 3}})"),
            "sys.json: at 'inter_node.bandwith_gbs': unknown key "
            "'bandwith_gbs'");
  EXPECT_EQ(errorOf(R"({"name": "x", "intra_node": {"kind": "nvlink9"}})"),
            "sys.json: at 'intra_node.kind': unknown link kind 'nvlink9'");
  EXPECT_EQ(errorOf(R"({"name": "x", "gpu": "B900"})"),
            "sys.json: at 'gpu': unknown GPU 'B900'");
  // Two GPUs need an intra-node link with some bandwidth.
  EXPECT_EQ(errorOf(R"({"name": "x", "gpus_per_node": 2})"),
            "sys.json: at 'intra_node.bandwidth_gbs': bandwidth must be "
            "positive (system 'x')");
  // Negative latencies and bandwidths, even of a link the system does not
  // use.
  EXPECT_EQ(errorOf(R"({"name": "x", "base": "dgx-a100",
                        "intra_node": {"latency_us": -1}})"),
            "sys.json: at 'intra_node.latency_us': latency must be a "
            "non-negative number (system 'x')");
  EXPECT_EQ(errorOf(R"({"name": "x", "base": "dgx-a100",
                        "inter_node": {"bandwidth_gbs": -5}})"),
            "sys.json: at 'inter_node.bandwidth_gbs': bandwidth must be a "
            "non-negative number (system 'x')");
  EXPECT_EQ(errorOf(R"({"name": "x", "base": "dgx-a100", "nvswitch": 1})"),
            "sys.json: at 'nvswitch': expected true or false");
}

TEST(SystemSpec, NaNFiguresAreErrors) {
  // JSON text cannot hold NaN, but a value built in memory can.
  llvm::json::Value nanLatency = llvm::json::Object{
      {"name", "x"},
      {"base", "dgx-a100"},
      {"host_pcie", llvm::json::Object{{"latency_us", std::nan("")}}}};
  auto s = parseSystemSpec(nanLatency, "mem");
  ASSERT_FALSE(bool(s));
  EXPECT_EQ(llvm::toString(s.takeError()),
            "mem: at 'host_pcie.latency_us': latency must be a non-negative "
            "number (system 'x')");
  llvm::json::Value nanBandwidth = llvm::json::Object{
      {"name", "x"},
      {"base", "dgx-a100"},
      {"intra_node", llvm::json::Object{{"bandwidth_gbs", std::nan("")}}}};
  auto b = parseSystemSpec(nanBandwidth, "mem");
  ASSERT_FALSE(bool(b));
  EXPECT_EQ(llvm::toString(b.takeError()),
            "mem: at 'intra_node.bandwidth_gbs': bandwidth must be a "
            "non-negative number (system 'x')");
}

TEST(SystemSpec, CalibrationRoundTripsAndIsChecked) {
  auto json = llvm::json::parse(R"({"name": "x", "base": "dgx-a100",
      "calibration": {"all_reduce": {"nvlink": {"bandwidth_efficiency": 0.7,
        "latency_scale": 0.5, "latency_offset_us": 12, "points": 30,
        "source": "fit"}}}})");
  ASSERT_TRUE(bool(json));
  auto s = parseSystemSpec(*json, "sys.json");
  ASSERT_TRUE(bool(s)) << llvm::toString(s.takeError());
  const CollectiveCalibration *c =
      s->calibrationFor(CollectiveKind::AllReduce, Fabric::NVLink);
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->bandwidthEfficiency, 0.7);
  EXPECT_DOUBLE_EQ(c->latencyUs(10), 17);
  EXPECT_EQ(c->points, 30u);
  EXPECT_EQ(s->calibrationFor(CollectiveKind::AllReduce, Fabric::Network),
            nullptr);
  auto back = parseSystemSpec(toJson(*s), "back");
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(toJson(*back), toJson(*s));

  EXPECT_EQ(errorOf(R"({"name": "x", "calibration": {"gossip": {}}})"),
            "sys.json: at 'calibration.gossip': unknown collective 'gossip'");
  EXPECT_EQ(
      errorOf(R"({"name": "x", "calibration": {"all_reduce": {"nvme": {}}}})"),
      "sys.json: at 'calibration.all_reduce.nvme': unknown fabric 'nvme' "
      "(nvlink, pcie, network)");
  EXPECT_EQ(errorOf(R"({"name": "x", "calibration": {"send_recv":
                        {"network": {"bandwidth_efficiency": 0}}}})"),
            "sys.json: at "
            "'calibration.send_recv.network.bandwidth_efficiency': must be a "
            "positive number (system 'x')");
  EXPECT_EQ(errorOf(R"({"name": "x", "calibration": {"send_recv":
                        {"network": {"latency_offset_us": -3}}}})"),
            "sys.json: at 'calibration.send_recv.network.latency_offset_us': "
            "must be a non-negative number (system 'x')");
}

TEST(SystemSpec, ComputeCapabilityFromTheGpu) {
  EXPECT_EQ(lookupSystemPreset("dgx-a100")->computeCapability(), 80u);
  EXPECT_EQ(lookupSystemPreset("dgx-h100")->computeCapability(), 90u);
  EXPECT_EQ(lookupSystemPreset("pai-v100-25gbe")->computeCapability(), 70u);
  SystemSpec s = *lookupSystemPreset("dgx-a100");
  s.compCap = 100;
  EXPECT_EQ(s.computeCapability(), 100u);
  EXPECT_TRUE(lookupSystemPreset("dgx-h100")->nvSwitch);
  EXPECT_FALSE(lookupSystemPreset("pcie-a100")->nvSwitch);
}

TEST(SystemSpec, FileErrorsCarryTheLine) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("sys", "json", path));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << "{\n  \"name\": \"x\",\n  \"base\": \"dgx-h100\",\n"
          "  \"efficency\": 0.5\n}\n";
  }
  auto s = loadSystemSpec(path);
  ASSERT_FALSE(bool(s));
  EXPECT_EQ(llvm::toString(s.takeError()),
            (path + ":4: at 'efficency': unknown key 'efficency'").str());

  // A line and column for JSON syntax, with a word on NaN.
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << "{\n  \"name\": \"x\",\n  \"intra_node\": {\"latency_us\": NaN}\n}\n";
  }
  auto nan = loadSystemSpec(path);
  ASSERT_FALSE(bool(nan));
  EXPECT_EQ(llvm::toString(nan.takeError()),
            (path + ":3:32: Invalid JSON value (NaN is not a JSON number: "
                    "latencies and bandwidths must be finite)")
                .str());
  // A nested key: the line of 'latency_us' under 'inter_node', not the one
  // under 'intra_node' above it.
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << "{\n  \"name\": \"x\",\n  \"base\": \"dgx-a100\",\n"
          "  \"intra_node\": {\"latency_us\": 1},\n"
          "  \"inter_node\": {\"latency_us\": -2}\n}\n";
  }
  auto negative = loadSystemSpec(path);
  ASSERT_FALSE(bool(negative));
  EXPECT_EQ(llvm::toString(negative.takeError()),
            (path + ":5: at 'inter_node.latency_us': latency must be a "
                    "non-negative number (system 'x')")
                .str());
  llvm::sys::fs::remove(path);

  auto missing = loadSystemSpec("/nonexistent/system.json");
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("not a system preset"),
            std::string::npos);
  auto preset = loadSystemSpec("dgx-h100");
  ASSERT_TRUE(bool(preset));
  EXPECT_EQ(preset->name, "dgx-h100");
}
