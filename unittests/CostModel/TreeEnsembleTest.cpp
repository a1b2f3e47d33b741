//===- TreeEnsembleTest.cpp - Boosters walked in place, as XGBoost does -===//

#include "perf/CostModel/TreeEnsemble.h"
#include "TinyBooster.h"
#include "perf/CostModel/MlModel.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <xgboost/c_api.h>

using namespace perf;

namespace {
/// Writes `text` to a file of its own; its path.
std::string writeTemporary(llvm::StringRef text) {
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("perf-tree", "json", path));
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  EXPECT_FALSE(ec) << ec.message();
  os << text;
  return std::string(path);
}

TEST(TreeEnsemble, WalksTheTinyBoosterByHand) {
  // One split: feature 7 below 0.5 goes left (-0.1), else right (+0.1);
  // a missing feature goes right (default_left 0); base score 0.5.
  std::string path = writeTemporary(perf::test::kTinyBooster);
  llvm::Expected<TreeEnsemble> trees = readBooster(path, kMlFeatureCount);
  llvm::sys::fs::remove(path);
  ASSERT_TRUE(bool(trees)) << llvm::toString(trees.takeError());
  EXPECT_EQ(trees->numTrees(), 1u);
  std::vector<float> row(kMlFeatureCount, 0.0f);
  EXPECT_EQ(trees->predict(row), 0.5f + -0.1f);
  row[7] = 0.5f; // not below the threshold
  EXPECT_EQ(trees->predict(row), 0.5f + 0.1f);
  row[7] = 0.49999997f;
  EXPECT_EQ(trees->predict(row), 0.5f + -0.1f);
  row[7] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(trees->predict(row), 0.5f + 0.1f);
}

/// Predicts `rows` (each kMlFeatureCount long) with XGBoost itself.
std::vector<float> xgboostPredictions(const std::string &bytes,
                                      const std::vector<float> &rows) {
  BoosterHandle booster = nullptr;
  EXPECT_EQ(XGBoosterCreate(nullptr, 0, &booster), 0);
  EXPECT_EQ(XGBoosterLoadModelFromBuffer(booster, bytes.data(), bytes.size()),
            0)
      << XGBGetLastError();
  EXPECT_EQ(XGBoosterSetParam(booster, "nthread", "1"), 0);
  size_t n = rows.size() / kMlFeatureCount;
  char array[200];
  std::snprintf(
      array, sizeof(array),
      "{\"data\": [%llu, true], \"shape\": [%zu, %u], "
      "\"typestr\": \"<f4\", \"version\": 3}",
      static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(rows.data())),
      n, kMlFeatureCount);
  const char *config =
      "{\"type\": 0, \"training\": false, \"iteration_begin\": 0, "
      "\"iteration_end\": 0, \"strict_shape\": false, \"cache_id\": 0, "
      "\"missing\": NaN}";
  const bst_ulong *shape = nullptr;
  bst_ulong dims = 0;
  const float *out = nullptr;
  EXPECT_EQ(XGBoosterPredictFromDense(booster, array, config, nullptr, &shape,
                                      &dims, &out),
            0)
      << XGBGetLastError();
  std::vector<float> predictions(out, out + n);
  XGBoosterFree(booster);
  return predictions;
}

// Every shipped booster, on rows that land on its thresholds, next to them,
// far from them and missing: the same float as XGBoost's, bit for bit.
TEST(TreeEnsemble, PredictsAsXGBoostOnEveryShippedBooster) {
  llvm::SmallString<256> dir(PERF_SOURCE_DIR);
  llvm::sys::path::append(dir, "data", "models", "neusight");
  std::error_code ec;
  unsigned boosters = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef path = it->path();
    if (!path.ends_with(".ubj.gz"))
      continue;
    ++boosters;
    llvm::Expected<std::string> bytes = readBoosterFile(path, kMlFeatureCount);
    ASSERT_TRUE(bool(bytes)) << llvm::toString(bytes.takeError());
    llvm::Expected<TreeEnsemble> trees = readBooster(path, kMlFeatureCount);
    ASSERT_TRUE(bool(trees)) << llvm::toString(trees.takeError());

    // The first rows are XGBoost's prediction of zeros and of ones; then
    // random rows whose features are often a threshold itself (the split's
    // `<`), a float either side of one, or missing.
    std::mt19937 random(7);
    std::uniform_real_distribution<float> anywhere(-20.0f, 40.0f);
    std::uniform_int_distribution<int> pick(0, 5);
    constexpr size_t kRows = 4000;
    std::vector<float> rows(kRows * kMlFeatureCount, 0.0f);
    std::fill(rows.begin() + kMlFeatureCount,
              rows.begin() + 2 * kMlFeatureCount, 1.0f);
    float last = 0.5f;
    for (size_t i = 2 * kMlFeatureCount; i < rows.size(); ++i) {
      switch (pick(random)) {
      case 0:
        rows[i] = std::numeric_limits<float>::quiet_NaN();
        break;
      case 1:
        rows[i] = std::nextafter(last, 100.0f);
        break;
      case 2:
        rows[i] = std::nextafter(last, -100.0f);
        break;
      default:
        rows[i] = last = std::round(anywhere(random) * 8.0f) / 8.0f;
      }
    }
    std::vector<float> expected = xgboostPredictions(*bytes, rows);
    ASSERT_EQ(expected.size(), kRows) << path.str();
    size_t differ = 0;
    for (size_t r = 0; r < kRows; ++r) {
      float ours = trees->predict(
          llvm::ArrayRef(rows).slice(r * kMlFeatureCount, kMlFeatureCount));
      if (std::memcmp(&ours, &expected[r], sizeof(float)) != 0 && differ++ < 3)
        ADD_FAILURE() << path.str() << " row " << r << ": " << ours
                      << " against XGBoost's " << expected[r];
    }
    EXPECT_EQ(differ, 0u) << path.str();
  }
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_EQ(boosters, 6u) << "the shipped boosters in " << dir.str().str();
}
} // namespace
