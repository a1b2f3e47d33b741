// XGBoost model files are checked before XGBoost reads them: the corrupt
// ones here crashed, hung or read out of bounds inside XGBoost.

#include "TinyBooster.h"
#include "perf/CostModel/MlModel.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <map>
#include <xgboost/c_api.h>

using namespace perf;
using perf::test::kTinyBooster;

namespace {
class BoosterFile : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("perf-booster", dir));
    path = dir;
    llvm::sys::path::append(path, "elementwise.json");
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// Writes the tiny booster with `from` replaced by `to`.
  void write(llvm::StringRef from = "", llvm::StringRef to = "") {
    std::string text = kTinyBooster;
    if (!from.empty()) {
      size_t at = text.find(from.str());
      ASSERT_NE(at, std::string::npos) << from.str();
      text.replace(at, from.size(), to.str());
    }
    writeBytes(text);
  }
  /// Writes `bytes` to the booster's file, or to `name` in the folder.
  void writeBytes(llvm::StringRef bytes, llvm::StringRef name = "") {
    llvm::SmallString<128> to(path);
    if (!name.empty()) {
      to = dir;
      llvm::sys::path::append(to, name);
    }
    std::error_code ec;
    llvm::raw_fd_ostream os(to, ec);
    ASSERT_FALSE(ec) << ec.message();
    os << bytes;
  }
  /// A 2^20-element element-wise kernel, which the tiny booster prices.
  static KernelDesc elementwiseKernel() {
    KernelDesc k;
    k.kind = KernelKind::Elementwise;
    k.numElements = 1 << 20;
    return k;
  }
  /// The error reading the booster, without the path.
  std::string error() {
    auto bytes = readBoosterFile(path, kMlFeatureCount);
    if (bytes)
      return "";
    std::string message = llvm::toString(bytes.takeError());
    size_t at = message.find(" (" + std::string(path) + ")");
    return at == std::string::npos ? message : message.substr(0, at);
  }

  llvm::SmallString<128> dir, path;
};
} // namespace

TEST_F(BoosterFile, TheTinyBoosterLoadsAndPrices) {
  write();
  EXPECT_EQ(error(), "");
  auto model = MlModel::load(dir);
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  KernelDesc k = elementwiseKernel();
  auto cost = (*model)->estimate(k, *lookupGpu("T4"));
  ASSERT_TRUE(cost);
  EXPECT_TRUE(std::isfinite(cost->latencyUs));
}

TEST_F(BoosterFile, LeavesThatOverflowThePriceAreRefused) {
  // Found by fuzz-booster: a booster that passed every other check priced
  // every element-wise kernel at infinity (e^1000.5 over the baseline).
  write(R"("split_conditions":[0.5,-0.1,0.1])",
        R"("split_conditions":[0.5,-0.1,1000.0])");
  EXPECT_EQ(error(), "XGBoost model: trees: base_score and the largest leaves "
                     "add up to 1000.5; a log-residual past 700 overflows the "
                     "price");
  EXPECT_FALSE(bool(MlModel::load(dir)));
  // 699.5 is within the bound.
  write(R"("split_conditions":[0.5,-0.1,0.1])",
        R"("split_conditions":[0.5,-0.1,699.0])");
  EXPECT_EQ(error(), "");
}

TEST_F(BoosterFile, AChildPointingBackIsALoop) {
  write(R"("left_children":[1,-1,-1])", R"("left_children":[0,-1,-1])");
  EXPECT_EQ(error(), "XGBoost model: trees[0].node[0]: child 0 is not a later "
                     "node of the tree");
  // MlModel::load reports the same instead of hanging in prediction.
  EXPECT_FALSE(bool(MlModel::load(dir)));
}

TEST_F(BoosterFile, AChildPastTheEndIsOutOfBounds) {
  write(R"("right_children":[2,-1,-1])", R"("right_children":[9,-1,-1])");
  EXPECT_EQ(error(), "XGBoost model: trees[0].node[0]: child 9 is not a later "
                     "node of the tree");
}

TEST_F(BoosterFile, ASplitOnAMissingFeature) {
  write(R"("split_indices":[7,0,0])", R"("split_indices":[99,0,0])");
  EXPECT_EQ(error(), "XGBoost model: trees[0].node[0]: splits on feature 99; "
                     "the model has 32");
}

TEST_F(BoosterFile, NodeCountsMustMatchTheArrays) {
  write(R"("num_nodes":"3")", R"("num_nodes":"4")");
  EXPECT_EQ(error(), "XGBoost model: trees[0].left_children: must be an array "
                     "of 4 entries");
  write(R"("num_nodes":"3")", R"("num_nodes":"-3")");
  EXPECT_EQ(error(), "XGBoost model: trees[0].tree_param.num_nodes: must be a "
                     "string of decimal digits");
}

TEST_F(BoosterFile, ANodeWithOneChild) {
  write(R"("right_children":[2,-1,-1])", R"("right_children":[-1,-1,-1])");
  EXPECT_EQ(error(), "XGBoost model: trees[0].node[0]: has one child; a node "
                     "has two or none");
}

TEST_F(BoosterFile, TheFeatureCountIsPerfs) {
  write(R"("num_feature":"32","num_target")",
        R"("num_feature":"3","num_target")");
  EXPECT_EQ(error(), "XGBoost model: learner_model_param.num_feature: must be "
                     "32, the features perf computes");
}

TEST_F(BoosterFile, TruncatedAndDeepFilesAreLocatedJsonErrors) {
  writeBytes(llvm::StringRef(kTinyBooster).take_front(40));
  EXPECT_EQ(error(),
            std::string(path) + ":1:40: invalid JSON: Unterminated string");
  writeBytes("{\"learner\":" + std::string(100000, '['));
  EXPECT_EQ(error(), std::string(path) + ":1:267: JSON nested deeper than the "
                                         "limit max-json-depth (256)");
}

TEST_F(BoosterFile, BinaryModelsAreNotRead) {
  writeBytes("binf\x01\x02\x03");
  EXPECT_EQ(error(), "not an XGBoost model (JSON starting '{\"' or UBJSON "
                     "starting '{' and a length marker)");
}

namespace {
/// The tiny booster as XGBoost writes it in UBJSON (typed, counted arrays).
std::string tinyUbjson() {
  BoosterHandle booster = nullptr;
  EXPECT_EQ(XGBoosterCreate(nullptr, 0, &booster), 0);
  std::string json = kTinyBooster;
  EXPECT_EQ(XGBoosterLoadModelFromBuffer(booster, json.data(), json.size()), 0);
  bst_ulong size = 0;
  const char *bytes = nullptr;
  EXPECT_EQ(XGBoosterSaveModelToBuffer(booster, R"({"format": "ubj"})", &size,
                                       &bytes),
            0);
  std::string ubjson(bytes, size);
  XGBoosterFree(booster);
  return ubjson;
}
} // namespace

TEST_F(BoosterFile, UbjsonBoostersAreCheckedAndLoadedLikeJson) {
  write();
  auto asJson = MlModel::load(dir);
  ASSERT_TRUE(bool(asJson)) << llvm::toString(asJson.takeError());
  KernelDesc k = elementwiseKernel();
  auto jsonCost = (*asJson)->estimate(k, *lookupGpu("T4"));
  ASSERT_TRUE(jsonCost);

  llvm::sys::fs::remove(path);
  llvm::sys::path::replace_extension(path, "ubj");
  std::string ubjson = tinyUbjson();
  writeBytes(ubjson);
  EXPECT_EQ(error(), "");
  auto asUbjson = MlModel::load(dir);
  ASSERT_TRUE(bool(asUbjson)) << llvm::toString(asUbjson.takeError());
  auto ubjsonCost = (*asUbjson)->estimate(k, *lookupGpu("T4"));
  ASSERT_TRUE(ubjsonCost);
  EXPECT_DOUBLE_EQ(ubjsonCost->latencyUs, jsonCost->latencyUs);

  // The loop the JSON test refuses, in binary: left_children is an int32
  // array "[$l#" with a counted length; its first entry 1 becomes 0.
  size_t at = ubjson.find("left_children");
  ASSERT_NE(at, std::string::npos);
  at += strlen("left_children");
  ASSERT_EQ(ubjson.substr(at, 4), "[$l#");
  at += 4;
  std::map<char, size_t> lengthBytes = {
      {'i', 1}, {'U', 1}, {'I', 2}, {'l', 4}, {'L', 8}};
  ASSERT_TRUE(lengthBytes.count(ubjson[at]));
  at += 1 + lengthBytes[ubjson[at]];
  ASSERT_EQ(ubjson.substr(at, 4), std::string("\0\0\0\x01", 4));
  ubjson[at + 3] = 0;
  writeBytes(ubjson);
  EXPECT_EQ(error(), "XGBoost model: trees[0].node[0]: child 0 is not a later "
                     "node of the tree");
  EXPECT_FALSE(bool(MlModel::load(dir)));
}

TEST_F(BoosterFile, EveryTruncatedUbjsonIsAnErrorAtAByte) {
  std::string ubjson = tinyUbjson();
  llvm::sys::path::replace_extension(path, "ubj");
  for (size_t n = 0; n < ubjson.size(); ++n) {
    writeBytes(ubjson.substr(0, n));
    EXPECT_NE(error(), "") << "truncated to " << n << " bytes";
  }
}

TEST_F(BoosterFile, DeepOrOverCountedUbjsonIsRefusedBeforeAllocating) {
  llvm::sys::path::replace_extension(path, "ubj");
  writeBytes("{i\x01"
             "a" +
             std::string(100000, '['));
  EXPECT_EQ(error(), "UBJSON at byte 260: nesting is 257, above the limit "
                     "max-json-depth (256)");
  // A float array claiming 2^62 elements in an 18-byte file.
  writeBytes(std::string("{i\x01"
                         "a[$d#L\x40\0\0\0\0\0\0\0",
                         17) +
             "}");
  EXPECT_EQ(error(), "UBJSON at byte 17: count 4611686018427387904 exceeds "
                     "the 1 bytes left");
}

TEST_F(BoosterFile, OnlyTheBoostersOfThePricedKindsAreRead) {
  write();
  writeBytes("{\"not\": \"a booster\"}", "gemm.json");
  KernelDesc k = elementwiseKernel();
  // Every kind: the damaged GEMM booster is an error.
  EXPECT_FALSE(bool(MlModel::load(dir)));
  EXPECT_FALSE(bool(MlModel::load(dir, std::set{KernelKind::Gemm})));
  // Element-wise kernels only: the GEMM booster is not read.
  auto elementwise = MlModel::load(dir, std::set{KernelKind::Elementwise});
  ASSERT_TRUE(bool(elementwise)) << llvm::toString(elementwise.takeError());
  EXPECT_TRUE((*elementwise)->estimate(k, *lookupGpu("T4")));
  // Another kind only: element-wise kernels fall through.
  auto softmax = MlModel::load(dir, std::set{KernelKind::Softmax});
  ASSERT_TRUE(bool(softmax)) << llvm::toString(softmax.takeError());
  EXPECT_FALSE((*softmax)->estimate(k, *lookupGpu("T4")));
}
