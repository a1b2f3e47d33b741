#include "perf/Comm/ChakraTraceFile.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <zlib.h>

using namespace perf;
using namespace perf::chakra;

TEST(ChakraTrace, RoundTripsThroughAFile) {
  Trace t;
  t.metadataAttrs.push_back(Attr{"schema"});
  t.metadataAttrs.back().kind = Attr::Kind::String;
  t.metadataAttrs.back().stringValue = "perf";
  t.nodes.push_back(makeComputeNode(1, "gemm", 120));
  t.nodes.back().setInt64("num_ops", 1 << 30);
  t.nodes.back().setUint64("tensor_size", 1ull << 33);
  t.nodes.push_back(makeCollectiveNode(2, "all_reduce", CommType::AllReduce,
                                       25557032 * 4, 2500, {1}));
  t.nodes.push_back(
      makePointToPointNode(3, "send", true, 0, 1, 7, 4096, 9, {1, 2}));
  t.nodes.back().ctrlDeps = {2};

  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("trace", "et", path));
  ASSERT_FALSE(bool(writeTraceFile(t, path)));
  auto back = readTraceFile(path);
  llvm::sys::fs::remove(path);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());

  EXPECT_EQ(back->version, "0.0.4");
  ASSERT_EQ(back->metadataAttrs.size(), 1u);
  EXPECT_EQ(back->metadataAttrs[0].stringValue, "perf");
  ASSERT_EQ(back->nodes.size(), 3u);
  const Node &gemm = back->nodes[0];
  EXPECT_EQ(gemm.type, NodeType::Compute);
  EXPECT_EQ(gemm.durationMicros, 120u);
  EXPECT_FALSE(gemm.isCpuOp());
  EXPECT_EQ(gemm.findAttr("num_ops")->intValue, 1 << 30);
  EXPECT_EQ(gemm.findAttr("tensor_size")->uintValue, 1ull << 33);
  const Node &ar = back->nodes[1];
  EXPECT_EQ(ar.type, NodeType::CommCollective);
  EXPECT_EQ(ar.commType(), CommType::AllReduce);
  EXPECT_EQ(ar.commSize(), 102228128);
  EXPECT_EQ(ar.dataDeps, std::vector<uint64_t>{1});
  const Node &send = back->nodes[2];
  EXPECT_EQ(send.type, NodeType::CommSend);
  EXPECT_EQ(send.findAttr("comm_dst")->kind, Attr::Kind::Int32);
  EXPECT_EQ(send.findAttr("comm_dst")->intValue, 1);
  EXPECT_EQ(send.findAttr("comm_tag")->intValue, 7);
  EXPECT_EQ(send.dataDeps, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(send.ctrlDeps, std::vector<uint64_t>{2});
}

TEST(ChakraTrace, TheWireFormatIsLengthDelimited) {
  Trace t;
  t.version = "v";
  t.nodes.push_back(makeComputeNode(5, "k", 3));
  std::string bytes, error;
  ASSERT_TRUE(encodeTrace(t, bytes, error));
  // GlobalMetadata{version="v"}: tag 0x0a, length 1, 'v'; prefixed by 3.
  ASSERT_GE(bytes.size(), 4u);
  EXPECT_EQ(bytes.substr(0, 4), std::string("\x03\x0a\x01v", 4));
  // Node: id=5 is field 1 varint (0x08 0x05) right after the length prefix.
  EXPECT_EQ(bytes.substr(5, 2), std::string("\x08\x05", 2));
  EXPECT_EQ(size_t(uint8_t(bytes[4])), bytes.size() - 5);
}

TEST(ChakraTrace, RejectsTruncatedInput) {
  Trace t;
  t.nodes.push_back(makeComputeNode(1, "a", 1));
  t.nodes.push_back(makeComputeNode(2, "b", 1));
  std::string bytes, error;
  ASSERT_TRUE(encodeTrace(t, bytes, error));
  Trace back;
  EXPECT_FALSE(decodeTrace(bytes.substr(0, bytes.size() - 3), back, error));
  EXPECT_NE(error.find("node 1 is truncated"), std::string::npos) << error;
  EXPECT_FALSE(decodeTrace("", back, error));
}

/// The first file ending in `suffix` in a .tar.gz archive.
static bool readFromTarGz(const std::string &archive, const std::string &suffix,
                          std::string &out) {
  gzFile f = gzopen(archive.c_str(), "rb");
  if (!f)
    return false;
  std::string tar;
  char buf[1 << 16];
  int got;
  while ((got = gzread(f, buf, sizeof(buf))) > 0)
    tar.append(buf, got);
  gzclose(f);
  for (size_t at = 0; at + 512 <= tar.size();) {
    std::string name(tar.data() + at, strnlen(tar.data() + at, 100));
    if (name.empty())
      break;
    size_t size =
        std::stoull(std::string(tar.data() + at + 124, 12), nullptr, 8);
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out = tar.substr(at + 512, size);
      return true;
    }
    at += 512 + (size + 511) / 512 * 512;
  }
  return false;
}

// One ResNet-50 training iteration converted by Chakra's PyTorch converter
// (mlcommons/chakra tests/data). The counts were taken independently with
// protoc-generated Python bindings of the upstream schema.
TEST(ChakraTrace, DecodesChakraResNet50Trace) {
  std::string archive = std::string(PERF_SOURCE_DIR) +
                        "/../shared/data/traces/chakra/"
                        "feeder_tests_trace.tar.gz";
  std::string bytes;
  if (!readFromTarGz(archive, ".et", bytes))
    GTEST_SKIP() << "shared data absent: " << archive;
  Trace t;
  std::string error;
  ASSERT_TRUE(decodeTrace(bytes, t, error)) << error;
  EXPECT_EQ(t.metadataAttrs.size(), 5u);
  EXPECT_EQ(t.metadataAttrs[0].name, "schema");
  ASSERT_EQ(t.nodes.size(), 3664u);
  std::map<NodeType, int> byType;
  std::map<int64_t, int> byComm;
  uint64_t durations = 0, dataDeps = 0;
  int64_t commBytes = 0;
  for (const Node &n : t.nodes) {
    ++byType[n.type];
    durations += n.durationMicros;
    dataDeps += n.dataDeps.size();
    if (auto c = n.commType())
      ++byComm[int64_t(*c)];
    if (auto s = n.commSize())
      commBytes += *s;
  }
  EXPECT_EQ(byType[NodeType::Compute], 3643);
  EXPECT_EQ(byType[NodeType::CommCollective], 21);
  EXPECT_EQ(byComm[int64_t(CommType::AllReduce)], 5);
  EXPECT_EQ(byComm[int64_t(CommType::Broadcast)], 2);
  EXPECT_EQ(commBytes, 102441032);
  EXPECT_EQ(durations, 381795u);
  EXPECT_EQ(dataDeps, 181878u);
  const Node &first = t.nodes.front();
  EXPECT_EQ(first.id, 216u);
  EXPECT_EQ(first.name, "aten::flatten_dense_tensors(0)");
  EXPECT_EQ(first.durationMicros, 318u);

  // Re-encoding what was decoded keeps every field this codec models.
  std::string again;
  ASSERT_TRUE(encodeTrace(t, again, error)) << error;
  Trace t2;
  ASSERT_TRUE(decodeTrace(again, t2, error)) << error;
  ASSERT_EQ(t2.nodes.size(), t.nodes.size());
  EXPECT_EQ(t2.nodes[100].dataDeps, t.nodes[100].dataDeps);
  EXPECT_EQ(t2.nodes[100].attrs.size(), t.nodes[100].attrs.size());
}
