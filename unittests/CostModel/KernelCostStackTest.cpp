#include "perf/CostModel/KernelCostModel.h"
#include "perf/CostModel/MlModel.h"
#include "perf/CostModel/ModelTraining.h"
#include "perf/CostModel/RooflineModel.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {
/// Prices every kernel at a fixed latency, so the stack's choice is visible.
class FixedModel : public KernelCostModel {
public:
  FixedModel(std::string name, double us) : modelName(std::move(name)), us(us) {}
  llvm::StringRef name() const override { return modelName; }
  std::optional<KernelCost> estimate(const KernelDesc &,
                                     const GpuSpec &) const override {
    KernelCost cost;
    cost.latencyUs = us;
    cost.model = modelName;
    return cost;
  }

private:
  std::string modelName;
  double us;
};

KernelDesc gemm(DType dtype, bool tensorCores) {
  KernelDesc k;
  k.kind = KernelKind::Gemm;
  k.m = k.n = k.k = 1024;
  k.dtype = dtype;
  k.tensorCores = tensorCores;
  return k;
}

KernelCostStack twoModelStack() {
  KernelCostStack stack;
  stack.add(std::make_unique<FixedModel>("ml", 10));
  stack.add(std::make_unique<FixedModel>("roofline", 20));
  return stack;
}

std::string writeTemp(llvm::StringRef dir, llvm::StringRef name,
                      llvm::StringRef text) {
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  EXPECT_FALSE(ec);
  os << text;
  return path.str().str();
}
} // namespace

TEST(ModelSelection, RoutesUnseenGpusOnly) {
  ModelSelection selection;
  selection.trainedDevices = {lookupGpu("V100")->name};
  selection.first[{"gemm", "f32"}] = "roofline";
  KernelCostStack stack = twoModelStack();
  stack.setSelection(selection);
  // A training GPU keeps the stack's order: ml, fitted on it, answers.
  EXPECT_EQ(stack.estimate(gemm(DType::F32, false), *lookupGpu("V100")).model,
            "ml");
  // On a GPU outside training, the held-out winner answers first.
  KernelCost unseen = stack.estimate(gemm(DType::F32, false), *lookupGpu("T4"));
  EXPECT_EQ(unseen.model, "roofline");
  EXPECT_DOUBLE_EQ(unseen.latencyUs, 20);
  // A key the selection has no evidence for keeps the order.
  EXPECT_EQ(stack.estimate(gemm(DType::F16, true), *lookupGpu("T4")).model,
            "ml");
}

TEST(ModelSelection, Bf16UsesTheFp16Evidence) {
  ModelSelection selection;
  selection.trainedDevices = {"A100-SXM4-80GB"};
  selection.first[{"gemm", "f16+tc"}] = "roofline";
  EXPECT_EQ(selection.choose(gemm(DType::BF16, true), *lookupGpu("H100")),
            "roofline");
  EXPECT_EQ(selection.choose(gemm(DType::BF16, false), *lookupGpu("H100")),
            "");
}

TEST(ModelSelection, RoundTripsThroughTheModelFolder) {
  ModelSelection selection;
  selection.trainedDevices = {"A", "B"};
  selection.first[{"softmax", "f32"}] = "calibrated";
  selection.heldOutGmae[{"softmax", "f32"}] = {{"calibrated", 0.125},
                                                {"ml", 0.143}};
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("perf-select-test", dir));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << selection.toJson();
  std::string path = writeTemp(dir, "selection.json", os.str());
  auto loaded = ModelSelection::load(path);
  ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
  EXPECT_EQ(loaded->trainedDevices, selection.trainedDevices);
  EXPECT_EQ(loaded->first, selection.first);
  ModelSelection::Key softmax{"softmax", "f32"};
  EXPECT_DOUBLE_EQ(loaded->heldOutGmae[softmax]["ml"], 0.143);
  llvm::sys::fs::remove_directories(dir);
}

TEST(ModelSelection, BadFilesAreErrorsNamingThem) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("perf-select-test", dir));
  auto expectError = [&](llvm::StringRef text, llvm::StringRef fragment) {
    std::string path = writeTemp(dir, "selection.json", text);
    auto loaded = ModelSelection::load(path);
    ASSERT_FALSE(bool(loaded));
    std::string message = llvm::toString(loaded.takeError());
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(fragment.str()), std::string::npos) << message;
  };
  expectError("{\"version\": 1, \"trained", "");
  expectError("{\"version\": 99, \"trained_devices\": [], \"choices\": []}",
              "version 99");
  expectError("{\"version\": 1, \"trained_devices\": [], \"choices\": [{}]}",
              "choices[0]");
  // The "auto" stack reads the folder's selection.json and fails on a
  // corrupt one instead of silently keeping the plain order.
  CostModelOptions options;
  options.mlModelDir = dir.str().str();
  writeTemp(dir, "selection.json", "not json");
  auto stack = createKernelCostStack("auto", options);
  ASSERT_FALSE(bool(stack));
  EXPECT_NE(llvm::toString(stack.takeError()).find("selection.json"),
            std::string::npos);
  llvm::sys::fs::remove_directories(dir);
}

// The shipped default stack on every catalog GPU with half-precision tensor
// cores, over a grid from decode-sized to large GEMMs: a BF16/FP16 GEMM on
// tensor cores is never priced above the same GEMM in FP32 on the CUDA cores
// (what the fitted models price without tensor cores) and never below the
// tensor-core roofline at peak. (Half precision on the CUDA cores has no
// measurements; it falls to the plain roofline, a bound with no fixed cost,
// so it is no reference for a fitted price.)
TEST(DefaultStack, TensorCoreGemmsBetweenTheirBounds) {
  CostModelOptions options;
  options.mlModelDir = std::string(PERF_SOURCE_DIR) + "/data/models/neusight";
  auto stack = createKernelCostStack(kAutoModelStack, options);
  ASSERT_TRUE(bool(stack)) << llvm::toString(stack.takeError());
  RooflineModel peak(1.0, 1.0);
  const int64_t sizes[] = {1, 16, 64, 256, 1024, 4096, 8192};
  unsigned checked = 0;
  for (const GpuSpec &gpu : gpuCatalog()) {
    for (DType type : {DType::F16, DType::BF16}) {
      if (gpu.peakFlops(type, true) <= gpu.peakFlops(type, false))
        continue; // no tensor cores for this type
      for (int64_t m : sizes)
        for (int64_t n : {int64_t(1024), int64_t(4096), int64_t(16384)})
          for (int64_t k : {int64_t(1024), int64_t(8192)}) {
            KernelDesc tc = gemm(type, true);
            tc.m = m;
            tc.n = n;
            tc.k = k;
            KernelDesc fp32 = tc;
            fp32.tensorCores = false;
            fp32.dtype = DType::F32;
            double price = stack->estimate(tc, gpu).latencyUs;
            SCOPED_TRACE(gpu.name + " " + dtypeName(type).str() + " " +
                         std::to_string(m) + "x" + std::to_string(n) + "x" +
                         std::to_string(k));
            EXPECT_LE(price, stack->estimate(fp32, gpu).latencyUs);
            EXPECT_GE(price, peak.estimate(tc, gpu)->latencyUs);
            ++checked;
          }
    }
  }
  EXPECT_GT(checked, 500u);
}

// A model folder written by `perf-train --select`: the ml model loads its
// boosters and leaves selection.json (and roofline.json) to their readers,
// and the "auto" stack routes an unseen GPU's element-wise kernels to the
// selected model.
TEST(ModelSelection, AutoStackReadsATrainedFolder) {
  GpuSpec v100 = *lookupGpu("V100");
  std::vector<KernelDesc> kernels;
  for (int64_t n = 1 << 12; n <= (1 << 22); n *= 2) {
    KernelDesc k;
    k.kind = KernelKind::Elementwise;
    k.numElements = n;
    k.numInputs = 2;
    kernels.push_back(k);
  }
  std::vector<TrainingRow> rows;
  for (const KernelDesc &k : kernels)
    rows.push_back({&k, &v100, 2 * mlBaselineUs(k, v100) + 10});
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("perf-select-test", dir));
  MlTrainOptions train;
  train.rounds = 20;
  train.threads = 1;
  std::string log;
  llvm::raw_string_ostream os(log);
  ASSERT_FALSE(bool(trainModelDirectory(rows, dir, train, os)));
  writeTemp(dir, "selection.json",
            "{\"version\": 1, \"trained_devices\": [\"V100-SXM2-32GB\"], "
            "\"choices\": [{\"kind\": \"elementwise\", \"type\": \"f32\", "
            "\"model\": \"roofline\"}]}");
  CostModelOptions options;
  options.mlModelDir = dir.str().str();
  auto stack = createKernelCostStack(kAutoModelStack, options);
  ASSERT_TRUE(bool(stack)) << llvm::toString(stack.takeError());
  EXPECT_EQ(stack->estimate(kernels[3], v100).model, "ml");
  EXPECT_EQ(stack->estimate(kernels[3], *lookupGpu("T4")).model, "roofline");
  llvm::sys::fs::remove_directories(dir);
}

// Trained on one GPU, nothing could be held out: on another GPU the models
// fitted to that GPU alone (ml, tile, and combinations of them) step aside.
TEST(ModelSelection, OneTrainingGpuLeavesOthersToTheAnalyticModels) {
  GpuSpec v100 = *lookupGpu("V100");
  KernelDesc k = gemm(DType::F16, true);
  std::vector<TrainingRow> rows = {{&k, &v100, 100}};
  llvm::SmallString<128> work;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("perf-select-test", work));
  std::string log;
  llvm::raw_string_ostream os(log);
  auto selection = selectModelsByHeldOutGpu(rows, work, MlTrainOptions(), os);
  ASSERT_TRUE(bool(selection)) << llvm::toString(selection.takeError());
  ModelSelection::Key key{"gemm", "f16+tc"};
  EXPECT_EQ(selection->first[key], ModelSelection::kAnalyticOnly);
  EXPECT_NE(log.find("nothing to hold out"), std::string::npos) << log;

  KernelCostStack stack;
  stack.add(std::make_unique<FixedModel>("ml", 10));
  stack.add(std::make_unique<FixedModel>("ml*tile", 12));
  stack.add(std::make_unique<FixedModel>("calibrated", 15));
  stack.add(std::make_unique<FixedModel>("roofline", 20));
  stack.setSelection(*selection);
  EXPECT_EQ(stack.estimate(k, v100).model, "ml");
  EXPECT_EQ(stack.estimate(k, *lookupGpu("A100")).model, "calibrated");
  llvm::sys::fs::remove_directories(work);
}
