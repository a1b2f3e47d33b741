#include "perf/CostModel/KernelMeasurements.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace perf;

TEST(NeuSightCsv, LinearAndBmmSemantics) {
  // From the data: the launch grid of volta_sgemm_128x64_tn for
  // B=1 M=357 N=711 K=52048 is 407 x 6 = ceil(52048/128) x ceil(357/64),
  // so K is the output width and N the reduction.
  const char *csv =
      "OPName,Latency,Device,Kernel Name,B,M,N,K\n"
      "linear,2.0,Tesla V100-PCIE-32GB,volta_sgemm_128x64_tn,2,357,711,52048\n"
      "bmm,0.05,Tesla T4,\"volta_sgemm_64x64_nn\",13,27,15,29\n";
  auto rows = parseNeuSightCsv(csv, "x.csv");
  ASSERT_TRUE(bool(rows)) << llvm::toString(rows.takeError());
  ASSERT_EQ(rows->size(), 2u);
  const KernelDesc &lin = (*rows)[0].kernel;
  EXPECT_EQ(lin.kind, KernelKind::Gemm);
  EXPECT_EQ(lin.m, 714);
  EXPECT_EQ(lin.k, 711);
  EXPECT_EQ(lin.n, 52048);
  EXPECT_EQ((*rows)[0].latencyUs, 2000.0);
  const KernelDesc &bmm = (*rows)[1].kernel;
  EXPECT_EQ(bmm.batch, 13);
  EXPECT_EQ(bmm.m, 27);
  EXPECT_EQ(bmm.k, 15);
  EXPECT_EQ(bmm.n, 29);
  EXPECT_EQ(bmm.name, "volta_sgemm_64x64_nn");
  EXPECT_EQ((*rows)[1].line, 3u);
}

TEST(NeuSightCsv, BadRowNamesFileAndLine) {
  const char *csv = "OPName,Latency,Device,B,H\n"
                    "add,0.1,Tesla T4,4,8\n"
                    "add,fast,Tesla T4,4,8\n";
  auto rows = parseNeuSightCsv(csv, "in.csv");
  ASSERT_FALSE(bool(rows));
  EXPECT_NE(llvm::toString(rows.takeError())
                .find("in.csv:3: column "
                      "'Latency'"),
            std::string::npos);
  auto unknown = parseNeuSightCsv("OPName,Latency,Device\nfoo,1,T4\n", "u.csv");
  ASSERT_FALSE(bool(unknown));
  EXPECT_NE(llvm::toString(unknown.takeError())
                .find("u.csv:2: unknown "
                      "operator 'foo'"),
            std::string::npos);
  // Given a tally, unknown operators are skipped and counted instead.
  SkippedOps skipped;
  auto kept = parseNeuSightCsv(
      "OPName,Latency,Device,B,H\nfoo,1,T4,1,1\nmulu,1,T4,4,8\nfoo,2,T4,1,1\n",
      "u.csv", &skipped);
  ASSERT_TRUE(bool(kept)) << llvm::toString(kept.takeError());
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_EQ((*kept)[0].kernel.numElements, 32);
  EXPECT_EQ((*kept)[0].kernel.numInputs, 1);
  EXPECT_EQ(skipped, (SkippedOps{{"foo", 2}}));
}

TEST(ErrorStats, MapeAndGmaeByHand) {
  // Errors +10%, -20%, +40%: MAPE = 23.33%, GMAE = (0.1*0.2*0.4)^(1/3).
  KernelMeasurement a, b, c;
  a.latencyUs = b.latencyUs = c.latencyUs = 100;
  std::vector<PricedRow> rows = {{&a, 110, "x"}, {&b, 80, "x"}, {&c, 140, "x"}};
  ErrorStats s = computeErrorStats(rows);
  EXPECT_EQ(s.count, 3u);
  EXPECT_NEAR(s.mape, 0.7 / 3, 1e-12);
  EXPECT_NEAR(s.gmae, std::cbrt(0.1 * 0.2 * 0.4), 1e-12);
  EXPECT_NEAR(s.within10, 1.0 / 3, 1e-12);
  EXPECT_NEAR(s.within25, 2.0 / 3, 1e-12);
}

TEST(ErrorStats, DebiasedByHand) {
  // Predictions 1.1x, 1.2x, 1.3x the measurements: the median ratio is 1.2,
  // so the debiased errors are 1.1/1.2 - 1, 0 and 1.3/1.2 - 1 (+-1/12).
  KernelMeasurement a, b, c;
  a.latencyUs = b.latencyUs = c.latencyUs = 100;
  std::vector<PricedRow> rows = {
      {&a, 110, "x"}, {&b, 120, "x"}, {&c, 130, "x"}};
  EXPECT_NEAR(medianLogRatio(rows), std::log(1.2), 1e-12);
  ErrorStats s = computeDebiasedErrorStats(rows);
  EXPECT_NEAR(s.mape, (1.0 / 12 + 0 + 1.0 / 12) / 3, 1e-12);
  // The exact hit is floored at 1e-4.
  EXPECT_NEAR(s.gmae, std::cbrt(1.0 / 12 * 1e-4 * 1.0 / 12), 1e-12);
  // An even count takes the mean of the two middle logs: ratios 0.5 and 2.
  std::vector<PricedRow> two = {{&a, 50, "x"}, {&b, 200, "x"}};
  EXPECT_NEAR(medianLogRatio(two), 0.0, 1e-12);
  EXPECT_EQ(computeDebiasedErrorStats({}).count, 0u);
}

TEST(NeuSightData, RealFilesParse) {
  std::string dir =
      std::string(PERF_SOURCE_DIR) + "/../shared/data/kernels/neusight";
  if (!llvm::sys::fs::is_directory(dir))
    GTEST_SKIP() << "shared data not found at " << dir;
  auto rows = readNeuSightCsv(dir + "/ln/Tesla_T4.csv.gz");
  ASSERT_TRUE(bool(rows)) << llvm::toString(rows.takeError());
  EXPECT_EQ(rows->size(), 1400u);
  EXPECT_EQ((*rows)[0].kernel.kind, KernelKind::LayerNorm);
  auto t4 = neuSightDevice(dir, "Tesla T4");
  ASSERT_TRUE(bool(t4)) << llvm::toString(t4.takeError());
  EXPECT_EQ(t4->numSMs, 40u);
}

TEST(VidurCsv, LayerOpsBecomeKernels) {
  // Llama-3-8B's shapes (32 heads, 8 KV heads, 4096 wide, 14336 gated MLP)
  // at 16 tokens over 2 tensor-parallel GPUs; head_dim = 4096 / 32 = 128.
  const char *csv =
      "time_stats.emb.median,time_stats.attn_pre_proj.median,"
      "time_stats.attn_post_proj.median,time_stats.mlp_up_proj.median,"
      "time_stats.mlp_down_proj.median,time_stats.mlp_act.median,"
      "time_stats.attn_rope.median,time_stats.input_layernorm.median,"
      "time_stats.add.median,n_head,n_kv_head,n_embd,n_expanded_embd,"
      "vocab_size,use_gated_mlp,num_tokens,num_tensor_parallel_workers\n"
      "0.003,0.02,0.01,0.05,0.03,0.004,0.005,0.006,0.007,32,8,4096,14336,"
      "128256,True,16,2\n";
  SkippedOps skipped;
  auto rows = parseVidurCsv(csv, "l.csv", "A40", &skipped);
  ASSERT_TRUE(bool(rows)) << llvm::toString(rows.takeError());
  EXPECT_EQ(skipped, (SkippedOps{{"emb", 1}}));
  ASSERT_EQ(rows->size(), 8u);
  auto op = [&](llvm::StringRef name) -> const KernelMeasurement & {
    for (const KernelMeasurement &m : *rows)
      if (m.op == name)
        return m;
    ADD_FAILURE() << "no " << name.str();
    return rows->front();
  };
  // QKV: (32 + 2 * 8) * 128 / 2 = 3072 outputs of 4096 inputs.
  const KernelMeasurement &qkv = op("attn_pre_proj");
  EXPECT_EQ(qkv.kernel.kind, KernelKind::Gemm);
  EXPECT_EQ(qkv.kernel.dtype, DType::F16);
  EXPECT_TRUE(qkv.kernel.tensorCores);
  EXPECT_EQ(qkv.kernel.m, 16);
  EXPECT_EQ(qkv.kernel.k, 4096);
  EXPECT_EQ(qkv.kernel.n, 3072);
  EXPECT_DOUBLE_EQ(qkv.latencyUs, 20.0);
  EXPECT_EQ(qkv.device, "A40");
  EXPECT_EQ(qkv.source, "vidur");
  EXPECT_EQ(op("attn_post_proj").kernel.k, 2048);
  EXPECT_EQ(op("attn_post_proj").kernel.n, 4096);
  // Gated: gate and up in one GEMM, 2 * 14336 / 2 outputs.
  EXPECT_EQ(op("mlp_up_proj").kernel.n, 14336);
  EXPECT_EQ(op("mlp_down_proj").kernel.k, 7168);
  // SiluAndMul: 16 * 7168 outputs from both halves of the up projection.
  const KernelDesc &act = op("mlp_act").kernel;
  EXPECT_EQ(act.op, "vllm::silu_and_mul");
  EXPECT_EQ(act.numElements, 114688);
  EXPECT_EQ(act.numInputs, 2);
  // Rope rotates 16 tokens of (32 + 8) * 128 / 2 values in place.
  EXPECT_EQ(op("attn_rope").kernel.numElements, 40960);
  EXPECT_EQ(op("attn_rope").kernel.numInputs, 1);
  EXPECT_EQ(op("input_layernorm").kernel.kind, KernelKind::LayerNorm);
  EXPECT_EQ(op("input_layernorm").kernel.rows, 16);
  EXPECT_EQ(op("input_layernorm").kernel.cols, 4096);
  EXPECT_EQ(op("add").kernel.numElements, 65536);
}

TEST(VidurCsv, BadInputNamesFileLineAndColumn) {
  auto noOps = parseVidurCsv("n_head,n_embd\n1,2\n", "a.csv", "A40");
  ASSERT_FALSE(bool(noOps));
  EXPECT_NE(llvm::toString(noOps.takeError()).find("a.csv:1: no 'time_stats"),
            std::string::npos);
  const char *header =
      "time_stats.add.median,n_head,n_kv_head,n_embd,n_expanded_embd,"
      "use_gated_mlp,num_tokens,num_tensor_parallel_workers\n";
  auto zero = parseVidurCsv(
      std::string(header) + "0.1,32,8,4096,100,True,0,1\n", "b.csv", "A40");
  ASSERT_FALSE(bool(zero));
  EXPECT_EQ(llvm::toString(zero.takeError()),
            "b.csv:2: column 'num_tokens' must be an integer from 1 to 2^40 "
            "(max-extent), got '0'");
  auto missing =
      parseVidurCsv("time_stats.add.median,n_head\n0.1,32\n", "c.csv", "A40");
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError())
                .find("c.csv:1: missing column 'n_kv_head'"),
            std::string::npos);
  // Without a tally, an op that is not one kernel is an error.
  auto emb = parseVidurCsv(
      "time_stats.emb.median,n_head,n_kv_head,n_embd,n_expanded_embd,"
      "use_gated_mlp,num_tokens,num_tensor_parallel_workers\n"
      "0.1,32,8,4096,100,True,4,1\n",
      "d.csv", "A40");
  ASSERT_FALSE(bool(emb));
  EXPECT_NE(llvm::toString(emb.takeError()).find("d.csv:2: operator 'emb'"),
            std::string::npos);
  auto a100 = vidurDevice("a100");
  ASSERT_TRUE(bool(a100)) << llvm::toString(a100.takeError());
  EXPECT_EQ(a100->name, "A100-SXM4-80GB");
  auto unknown = vidurDevice("b200x");
  ASSERT_FALSE(bool(unknown));
  EXPECT_NE(llvm::toString(unknown.takeError()).find("'b200x'"),
            std::string::npos);
}

TEST(VidurData, RealFilesParse) {
  std::string dir =
      std::string(PERF_SOURCE_DIR) + "/../shared/data/kernels/vidur";
  if (!llvm::sys::fs::is_directory(dir))
    GTEST_SKIP() << "shared data not found at " << dir;
  SkippedOps skipped;
  auto rows = readMeasurementCsv(dir + "/a40/phi-2.mlp.csv.gz", &skipped);
  ASSERT_TRUE(bool(rows)) << llvm::toString(rows.takeError());
  // phi-2 has no post-attention norm: 8 single-kernel ops per profiled row.
  ASSERT_EQ(rows->size() % 8, 0u);
  EXPECT_EQ(rows->size() / 8, size_t(skipped["emb"]));
  EXPECT_EQ((*rows)[0].device, "A40");
}
