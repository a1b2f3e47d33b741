#include "perf/CostModel/MlModel.h"
#include "perf/CostModel/ModelTraining.h"
#include "perf/CostModel/RooflineModel.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace perf;

TEST(MlModel, LearnsResidualAndPricesUnseenGpu) {
  // Latencies exactly 3x the peak roofline on two GPUs; the learned
  // log-residual must carry over to a third GPU it never saw.
  std::vector<GpuSpec> gpus = {*lookupGpu("V100"), *lookupGpu("T4"),
                               *lookupGpu("A100")};
  std::vector<KernelDesc> kernels;
  for (int64_t n = 1 << 12; n <= (1 << 24); n *= 2)
    for (int64_t inputs : {1, 2}) {
      KernelDesc k;
      k.kind = KernelKind::Elementwise;
      k.numElements = n;
      k.numInputs = inputs;
      kernels.push_back(k);
    }
  std::vector<MlSample> samples;
  for (size_t g = 0; g < 2; ++g)
    for (const KernelDesc &k : kernels)
      samples.push_back({&k, &gpus[g], 3 * mlBaselineUs(k, gpus[g])});
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("perf-ml-test", dir));
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, "elementwise.json");
  MlTrainOptions options;
  options.rounds = 50;
  options.threads = 1;
  ASSERT_FALSE(bool(trainMlModel(samples, options, path)));

  auto model = MlModel::load(dir);
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  EXPECT_EQ((*model)->kinds(), std::vector<std::string>{"elementwise"});
  for (const KernelDesc &k : kernels) {
    auto cost = (*model)->estimate(k, gpus[2]);
    ASSERT_TRUE(cost);
    EXPECT_EQ(cost->model, "ml");
    EXPECT_NEAR(cost->latencyUs / mlBaselineUs(k, gpus[2]), 3.0, 0.03);
  }
  // Kinds without a model fall through.
  KernelDesc gemm;
  gemm.kind = KernelKind::Gemm;
  gemm.m = gemm.n = gemm.k = 64;
  EXPECT_FALSE((*model)->estimate(gemm, gpus[2]));
  llvm::sys::fs::remove_directories(dir);
}

// A model built for no kinds reads no booster; prepare() reads a kind's when
// it is asked for, and a bad booster fails only the kind that needs it,
// naming its file.
TEST(MlModel, ReadsTheBoostersOfPreparedKindsOnly) {
  GpuSpec v100 = *lookupGpu("V100"), a100 = *lookupGpu("A100");
  std::vector<KernelDesc> kernels;
  for (int64_t n = 1 << 12; n <= (1 << 20); n *= 2) {
    KernelDesc k;
    k.kind = KernelKind::Elementwise;
    k.numElements = n;
    kernels.push_back(k);
  }
  std::vector<MlSample> samples;
  for (const KernelDesc &k : kernels)
    samples.push_back({&k, &v100, 2 * mlBaselineUs(k, v100)});
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("perf-ml-lazy", dir));
  llvm::SmallString<128> path(dir), bad(dir);
  llvm::sys::path::append(path, "elementwise.ubj");
  llvm::sys::path::append(bad, "softmax.ubj");
  MlTrainOptions options;
  options.rounds = 50;
  options.threads = 1;
  ASSERT_FALSE(bool(trainMlModel(samples, options, path)));
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(bad, ec);
    ASSERT_FALSE(ec);
    out << "{\"learner\": 1}";
  }

  // Read eagerly, the folder's bad booster fails the load.
  auto eager = MlModel::load(dir);
  ASSERT_FALSE(bool(eager));
  EXPECT_NE(llvm::toString(eager.takeError()).find("softmax.ubj"),
            std::string::npos);

  auto model = MlModel::load(dir, std::set<KernelKind>{});
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  EXPECT_TRUE((*model)->kinds().empty());
  EXPECT_FALSE((*model)->estimate(kernels[0], a100));
  std::vector<KernelKind> elementwise = {KernelKind::Elementwise};
  ASSERT_FALSE(bool((*model)->prepare(elementwise)));
  EXPECT_EQ((*model)->kinds(), std::vector<std::string>{"elementwise"});
  std::optional<KernelCost> cost = (*model)->estimate(kernels[0], a100);
  ASSERT_TRUE(cost);
  EXPECT_NEAR(cost->latencyUs / mlBaselineUs(kernels[0], a100), 2.0, 0.05);
  // Prepared again: nothing more to read. A kind without a booster is no
  // error (it falls through).
  std::vector<KernelKind> more = {KernelKind::Elementwise, KernelKind::Gemm};
  EXPECT_FALSE(bool((*model)->prepare(more)));

  std::vector<KernelKind> softmax = {KernelKind::Softmax};
  llvm::Error e = (*model)->prepare(softmax);
  ASSERT_TRUE(bool(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("softmax.ubj"),
            std::string::npos);
  // Asked again, it fails again, by name.
  e = (*model)->prepare(softmax);
  ASSERT_TRUE(bool(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("softmax.ubj"),
            std::string::npos);
  EXPECT_EQ((*model)->kinds(), std::vector<std::string>{"elementwise"});
  llvm::sys::fs::remove_directories(dir);
}

TEST(MlModel, MissingDirectoryIsAnError) {
  auto model = MlModel::load("/nonexistent/models");
  ASSERT_FALSE(bool(model));
  EXPECT_NE(llvm::toString(model.takeError()).find("does not exist"),
            std::string::npos);
}

/// trainModelDirectory (one thread, `rounds` rounds) into a fresh temporary
/// folder; "" after reporting a failure.
static std::string trainTemporaryModelDir(llvm::ArrayRef<TrainingRow> rows,
                                          llvm::StringRef prefix,
                                          unsigned rounds) {
  llvm::SmallString<128> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(prefix, dir)) {
    ADD_FAILURE() << "cannot create a temporary folder: " << ec.message();
    return "";
  }
  MlTrainOptions options;
  options.rounds = rounds;
  options.threads = 1;
  std::string log;
  llvm::raw_string_ostream os(log);
  if (llvm::Error e = trainModelDirectory(rows, dir, options, os)) {
    ADD_FAILURE() << llvm::toString(std::move(e));
    return "";
  }
  return dir.str().str();
}

static GpuSpec handGpu(llvm::StringRef name, double bandwidth) {
  GpuSpec gpu;
  gpu.name = name.str();
  gpu.numSMs = 10;
  gpu.coresPerSM = 64;
  gpu.clockMHz = 1000;
  gpu.fp32Flops = 10e12;
  gpu.memBandwidth = bandwidth;
  gpu.memBytes = 16e9;
  gpu.l2Bytes = 4e6;
  return gpu;
}

TEST(MlModel, BaselineAddsTheFixedCost) {
  // 2^20 float elements, two inputs: 3 * 4 * 2^20 = 12,582,912 bytes at
  // 1 TB/s = 12.582912 us, above the FLOP side (2^20 FLOP at 10 TFLOP/s =
  // 0.105 us); plus a 25 us fixed cost = 37.582912 us.
  GpuSpec gpu = handGpu("G", 1e12);
  KernelDesc k;
  k.kind = KernelKind::Elementwise;
  k.numElements = 1 << 20;
  k.numInputs = 2;
  EXPECT_NEAR(mlBaselineUs(k, gpu), 12.582912, 1e-6);
  EXPECT_NEAR(mlBaselineUs(k, gpu, 25.0), 37.582912, 1e-6);
  // An empty kernel costs exactly the fixed cost.
  KernelDesc empty = k;
  empty.numElements = 0;
  EXPECT_NEAR(mlBaselineUs(empty, gpu, 25.0), 25.0, 1e-9);
}

TEST(MlModel, LaunchCalibrationIsTheLowestElementwiseLatency) {
  GpuSpec a = handGpu("A", 1e12), b = handGpu("B", 2e12);
  KernelDesc add, gemm;
  add.kind = KernelKind::Elementwise;
  add.numElements = 1024;
  gemm.kind = KernelKind::Gemm;
  gemm.m = gemm.n = gemm.k = 64;
  std::vector<TrainingRow> rows = {{&add, &a, 31.5},
                                   {&add, &a, 27.25},
                                   {&gemm, &a, 12.0},
                                   {&add, &b, 40.0},
                                   {&gemm, &b, 9.0}};
  LaunchCalibration launch = measureLaunchCalibration(rows);
  ASSERT_EQ(launch.size(), 2u);
  // The GEMM rows (12 and 9 us) are not element-wise: not the floor.
  EXPECT_DOUBLE_EQ(launch["A"], 27.25);
  EXPECT_DOUBLE_EQ(launch["B"], 40.0);
}

TEST(MlModel, FixedCostCarriesOverAndCalibrates) {
  // Latencies 2 x (bandwidth bound + the GPU's fixed cost) on two GPUs with
  // fixed costs 20 and 30 us. A third GPU the model never saw is priced
  // with the mean, 25 us, until calibrated with its own.
  std::vector<GpuSpec> gpus = {handGpu("A", 1e12), handGpu("B", 2e12),
                               handGpu("C", 1.5e12)};
  const double fixed[] = {20, 30};
  std::vector<KernelDesc> kernels;
  for (int64_t n = 1 << 12; n <= (1 << 24); n *= 2) {
    KernelDesc k;
    k.kind = KernelKind::Elementwise;
    k.numElements = n;
    k.numInputs = 1;
    kernels.push_back(k);
  }
  std::vector<TrainingRow> rows;
  for (size_t g = 0; g < 2; ++g)
    for (const KernelDesc &k : kernels)
      rows.push_back({&k, &gpus[g], 2 * mlBaselineUs(k, gpus[g], fixed[g])});
  // measureLaunchCalibration takes the lowest element-wise latency, twice
  // the fixed cost plus the smallest kernel's bound here.
  LaunchCalibration launch = measureLaunchCalibration(rows);
  double launchA = 2 * mlBaselineUs(kernels[0], gpus[0], 20);
  double launchB = 2 * mlBaselineUs(kernels[0], gpus[1], 30);
  EXPECT_DOUBLE_EQ(launch["A"], launchA);
  EXPECT_DOUBLE_EQ(launch["B"], launchB);

  std::string dir = trainTemporaryModelDir(rows, "perf-ml-test", 50);
  ASSERT_FALSE(dir.empty());
  auto model = MlModel::load(dir);
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  EXPECT_DOUBLE_EQ((*model)->launchUsFor(gpus[0]), launchA);
  EXPECT_DOUBLE_EQ((*model)->launchUsFor(gpus[2]), (launchA + launchB) / 2);
  (*model)->calibrateLaunch("C", 50.0);
  EXPECT_DOUBLE_EQ((*model)->launchUsFor(gpus[2]), 50.0);
  // The isolated price (what a row measures) is above the baseline with
  // the fixed cost it is given; on a stream the device does not wait for
  // the isolated launch: all but 2 us of the 50 us fixed cost goes.
  auto cost = (*model)->estimate(kernels[0], gpus[2]);
  ASSERT_TRUE(cost);
  EXPECT_GT(cost->latencyUs + cost->isolationUs,
            mlBaselineUs(kernels[0], gpus[2], 50.0));
  EXPECT_DOUBLE_EQ(cost->isolationUs, 48.0);
  llvm::sys::fs::remove_directories(dir);
}

TEST(MlModel, BadLaunchFileIsAnError) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("perf-ml-test", dir));
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, "launch.json");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << "{\"devices\": {\"T4\": -3}}";
  }
  auto model = MlModel::load(dir);
  ASSERT_FALSE(bool(model));
  EXPECT_EQ(llvm::toString(model.takeError()),
            "device 'T4' has no finite non-negative number (" +
                std::string(path) + ")");
  llvm::sys::fs::remove_directories(dir);
}

TEST(MlModel, GemmTileResidualBooster) {
  GpuSpec v100 = *lookupGpu("V100"), t4 = *lookupGpu("T4");
  TileParams gemm = defaultTileParams().at("gemm");
  KernelDesc big;
  big.kind = KernelKind::Gemm;
  big.batch = 1;
  big.m = big.n = big.k = 1024;
  std::optional<TileAnalysis> a = analyzeTiles(big, v100);
  ASSERT_TRUE(a.has_value());
  // The tile-residual baseline is the tile model's price, GEMM only.
  EXPECT_DOUBLE_EQ(mlGemmBaselineUs(big, v100, gemm), tileLatencyUs(*a, gemm));
  KernelDesc add;
  add.kind = KernelKind::Elementwise;
  add.numElements = 1 << 20;
  EXPECT_EQ(mlGemmBaselineUs(add, v100, gemm), 0.0);

  // trainModelDirectory writes the second GEMM booster; it is not a kind.
  std::vector<KernelDesc> kernels;
  for (int64_t s = 64; s <= 4096; s *= 2)
    for (int64_t k : {64, 512}) {
      KernelDesc g = big;
      g.m = g.n = s;
      g.k = k;
      kernels.push_back(g);
    }
  std::vector<TrainingRow> rows;
  for (const GpuSpec *gpu : {&v100, &t4})
    for (const KernelDesc &k : kernels)
      rows.push_back({&k, gpu, 2 * mlBaselineUs(k, *gpu) + 10});
  std::string dir = trainTemporaryModelDir(rows, "perf-ml-gemm", 20);
  ASSERT_FALSE(dir.empty());
  llvm::SmallString<128> residual(dir);
  llvm::sys::path::append(residual, "gemm.tile-residual.ubj");
  EXPECT_TRUE(llvm::sys::fs::exists(residual));
  auto model = MlModel::load(dir);
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  EXPECT_EQ((*model)->kinds(), std::vector<std::string>{"gemm"});
  std::optional<KernelCost> cost = (*model)->estimate(kernels[4], v100);
  ASSERT_TRUE(cost.has_value());
  // Both boosters learned the training prices; their geometric mean is
  // within 25% of the row's latency.
  double measured = 2 * mlBaselineUs(kernels[4], v100) + 10;
  EXPECT_NEAR(cost->latencyUs, measured, 0.25 * measured);
  llvm::sys::fs::remove_directories(dir);
}

// A few weighted rows of a new GPU among many others: all of them are kept
// and the rest is sampled to fill maxRows.
TEST(MlModel, WeightedRowsSurviveTheSubsample) {
  std::vector<MlSample> samples(100);
  for (size_t i : {7, 42, 99})
    samples[i].weight = 10;
  std::vector<size_t> rows = selectTrainingRows(samples, 10, 1);
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_EQ(rows[0], 7u);
  EXPECT_EQ(rows[1], 42u);
  EXPECT_EQ(rows[2], 99u);
  for (size_t i = 3; i < rows.size(); ++i)
    EXPECT_EQ(samples[rows[i]].weight, 1);
  // Fewer rows than the limit: all of them, weighted first.
  EXPECT_EQ(selectTrainingRows(samples, 1000, 1).size(), 100u);
  // More weighted rows than the limit: still all weighted rows.
  EXPECT_EQ(selectTrainingRows(samples, 2, 1).size(), 3u);
}

// Boosters trained on FP32 CUDA-core GEMMs decline an FP16 tensor-core GEMM
// (it falls through to the next model) and say so in coverage.json.
TEST(MlModel, DeclinesTypesItWasNotTrainedOn) {
  GpuSpec v100 = *lookupGpu("V100");
  std::vector<KernelDesc> kernels;
  for (int64_t s = 64; s <= 2048; s *= 2) {
    KernelDesc g;
    g.kind = KernelKind::Gemm;
    g.m = g.n = g.k = s;
    kernels.push_back(g);
  }
  std::vector<TrainingRow> rows;
  for (const KernelDesc &k : kernels)
    rows.push_back({&k, &v100, 2 * mlBaselineUs(k, v100) + 10});
  std::string dir = trainTemporaryModelDir(rows, "perf-ml-types", 5);
  ASSERT_FALSE(dir.empty());
  llvm::SmallString<128> coverage(dir);
  llvm::sys::path::append(coverage, "coverage.json");
  auto text = llvm::MemoryBuffer::getFile(coverage);
  ASSERT_TRUE(bool(text));
  EXPECT_NE((*text)->getBuffer().find("\"gemm\": [\n      \"f32\"\n    ]"),
            llvm::StringRef::npos)
      << (*text)->getBuffer().str();

  auto model = MlModel::load(dir);
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  KernelDesc f32 = kernels[3];
  EXPECT_TRUE((*model)->estimate(f32, v100).has_value());
  KernelDesc f16 = f32;
  f16.dtype = DType::F16;
  f16.tensorCores = true;
  EXPECT_EQ(numberTypeKey(f16), "f16+tc");
  EXPECT_FALSE((*model)->estimate(f16, v100).has_value());
  llvm::sys::fs::remove_directories(dir);
}

// Softmaxes of 1024 columns, rows from 1024 to 16384 in steps of 2^(1/8):
// enough for the trees to tell the sizes apart.
static std::vector<KernelDesc> softmaxRowLadder() {
  std::vector<KernelDesc> kernels;
  for (int step = 0; step <= 32; ++step) {
    KernelDesc s;
    s.kind = KernelKind::Softmax;
    s.rows = std::lround(1024 * std::exp2(step / 8.0));
    s.cols = 1024;
    kernels.push_back(s);
  }
  return kernels;
}

// Trees cannot extrapolate: a softmax with four times the rows of the
// largest training row is priced as that row plus the marginal cost per row
// the model learned near it (the GPU is full, so more rows are more waves of
// the same work, without paying the fixed cost again), and coverage.json
// records the largest extent.
TEST(MlModel, ExtrapolatesTheMarginalCostPastTheLargestTrainedExtent) {
  GpuSpec v100 = *lookupGpu("V100");
  std::vector<KernelDesc> kernels = softmaxRowLadder();
  std::vector<TrainingRow> rows;
  for (const KernelDesc &k : kernels)
    rows.push_back({&k, &v100, 1.5 * mlBaselineUs(k, v100) + 200});
  std::string dir = trainTemporaryModelDir(rows, "perf-ml-extent", 300);
  ASSERT_FALSE(dir.empty());
  llvm::SmallString<128> coverage(dir);
  llvm::sys::path::append(coverage, "coverage.json");
  auto text = llvm::MemoryBuffer::getFile(coverage);
  ASSERT_TRUE(bool(text));
  EXPECT_NE((*text)->getBuffer().find("\"softmax\": 16384"),
            llvm::StringRef::npos)
      << (*text)->getBuffer().str();

  auto model = MlModel::load(dir);
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  KernelDesc largest = kernels.back();
  KernelDesc bigger = largest;
  bigger.rows = 4 * largest.rows;
  auto atLargest = (*model)->estimate(largest, v100);
  auto past = (*model)->estimate(bigger, v100);
  ASSERT_TRUE(atLargest && past);
  // The rows cost 1.5x the bound plus fixed costs, so each row past the
  // largest costs 1.5x its bound: 1.5 * (bound(65536) - bound(16384)).
  auto boundUs = [&](const KernelDesc &k) {
    auto [compute, memory] = rooflineSeconds(k, v100);
    return std::max(compute, memory) * 1e6;
  };
  double marginal = 1.5 * (boundUs(bigger) - boundUs(largest));
  EXPECT_NEAR(past->latencyUs - atLargest->latencyUs, marginal,
              0.1 * marginal);
  // Cheaper than four of the largest row (which pays its fixed cost four
  // times), never below the bound.
  EXPECT_LT(past->latencyUs, 4 * atLargest->latencyUs);
  EXPECT_GT(past->latencyUs, boundUs(bigger));
  EXPECT_EQ(mlParallelExtent(bigger), 65536);
  EXPECT_EQ(mlWithParallelExtent(bigger, 16384).rows, 16384);
  llvm::sys::fs::remove_directories(dir);
}

// The trees' price steps near the largest extent: one slow row at the top
// (30% above the line of the others) must not set the cost of every further
// row. The marginal cost is a robust line through the prices of the upper
// half of the extents, so a softmax with four times the rows costs about what
// the other rows' line says (1.5x its bound plus the fixed 200 us), well
// below the slope from half the largest extent to the largest.
TEST(MlModel, ExtrapolationIgnoresAStepAtTheLargestExtent) {
  GpuSpec v100 = *lookupGpu("V100");
  std::vector<KernelDesc> kernels = softmaxRowLadder();
  std::vector<TrainingRow> rows;
  for (const KernelDesc &k : kernels)
    rows.push_back({&k, &v100,
                    (1.5 * mlBaselineUs(k, v100) + 200) *
                        (&k == &kernels.back() ? 1.3 : 1.0)});
  std::string dir = trainTemporaryModelDir(rows, "perf-ml-step", 300);
  ASSERT_FALSE(dir.empty());
  auto model = MlModel::load(dir);
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  KernelDesc bigger = kernels.back();
  bigger.rows = 4 * bigger.rows;
  auto past = (*model)->estimate(bigger, v100);
  ASSERT_TRUE(past);
  double line = 1.5 * mlBaselineUs(bigger, v100) + 200;
  EXPECT_NEAR(past->latencyUs, line, 0.2 * line);
  KernelDesc half = kernels.back();
  half.rows /= 2;
  auto atTop = (*model)->estimate(kernels.back(), v100);
  auto atHalf = (*model)->estimate(half, v100);
  ASSERT_TRUE(atTop && atHalf);
  double twoPoint = atTop->latencyUs + (atTop->latencyUs - atHalf->latencyUs) *
                                           (bigger.rows - kernels.back().rows) /
                                           (kernels.back().rows - half.rows);
  EXPECT_LT(past->latencyUs, 0.9 * twoPoint);
  llvm::sys::fs::remove_directories(dir);
}
