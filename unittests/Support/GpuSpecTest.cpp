#include "perf/Support/GpuSpec.h"
#include "perf/Support/GpuSpecKeys.h"
#include "gtest/gtest.h"

using namespace perf;

TEST(GpuSpec, CatalogHasTheRequiredGpus) {
  for (const char *name : {"P100", "V100", "T4", "A100-40GB", "A100-80GB",
                           "L4", "H100-SXM", "H100-PCIe", "H200"})
    EXPECT_NE(lookupGpu(name), nullptr) << name;
  EXPECT_EQ(lookupGpu("B900"), nullptr);
}

TEST(GpuSpec, LookupIgnoresCaseAndSeparators) {
  const GpuSpec *h100 = lookupGpu("NVIDIA H100 80GB HBM3");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->name, "H100-SXM5-80GB");
  EXPECT_EQ(lookupGpu("tesla_t4"), lookupGpu("T4"));
}

TEST(GpuSpec, PeakFlopsPicksTensorCoresOnlyWhenAsked) {
  const GpuSpec *a100 = lookupGpu("A100");
  ASSERT_NE(a100, nullptr);
  EXPECT_DOUBLE_EQ(a100->peakFlops(DType::F32, false), 19.5e12);
  EXPECT_DOUBLE_EQ(a100->peakFlops(DType::TF32, true), 156e12);
  EXPECT_DOUBLE_EQ(a100->peakFlops(DType::BF16, true), 312e12);
  // P100 has no tensor cores: f16 falls back to the CUDA-core figure.
  EXPECT_DOUBLE_EQ(lookupGpu("P100")->peakFlops(DType::F16, true), 18.7e12);
}

TEST(GpuSpec, JsonOverridesABaseGpu) {
  auto json = llvm::json::parse(
      R"({"name": "H100-fast-HBM", "base": "H100", "mem_bw_gbs": 6000})");
  ASSERT_TRUE(bool(json));
  auto spec = parseGpuSpec(*json);
  ASSERT_TRUE(bool(spec)) << llvm::toString(spec.takeError());
  EXPECT_EQ(spec->name, "H100-fast-HBM");
  EXPECT_DOUBLE_EQ(spec->memBandwidth, 6000e9);
  EXPECT_EQ(spec->numSMs, 132u);
}

TEST(GpuSpec, JsonRejectsUnknownKeysAndMissingName) {
  auto bad = llvm::json::parse(R"({"name": "x", "sms": 4, "warp_drive": 1})");
  auto spec = parseGpuSpec(*bad);
  ASSERT_FALSE(bool(spec));
  EXPECT_NE(llvm::toString(spec.takeError()).find("warp_drive"),
            std::string::npos);
  auto noName = llvm::json::parse(R"({"sms": 4, "fp32_tflops": 1})");
  auto spec2 = parseGpuSpec(*noName);
  ASSERT_FALSE(bool(spec2));
  llvm::consumeError(spec2.takeError());
}

TEST(GpuSpec, ReadsNeuSightDeviceFiles) {
  auto json = llvm::json::parse(R"({"Device":"Tesla T4","Dev_Mem":15,
    "Mem_Bw":320,"Num_Sm":40,"Core_Per_SM":64,"Freq":1590,
    "SingleFLOPs":8141,"L2Cache":4})");
  auto spec = parseGpuSpec(*json);
  ASSERT_TRUE(bool(spec)) << llvm::toString(spec.takeError());
  EXPECT_EQ(spec->numSMs, 40u);
  EXPECT_DOUBLE_EQ(spec->fp32Flops, 8141e9);
  EXPECT_DOUBLE_EQ(spec->memBandwidth, 320e9);
}

TEST(GpuSpec, JsonRoundTrips) {
  const GpuSpec *l4 = lookupGpu("L4");
  auto back = parseGpuSpec(toJson(*l4));
  ASSERT_TRUE(bool(back));
  EXPECT_EQ(back->name, l4->name);
  EXPECT_DOUBLE_EQ(back->tensorF8Flops, l4->tensorF8Flops);
  EXPECT_DOUBLE_EQ(back->l2Bytes, l4->l2Bytes);
}

// The shared key table (perf-bench's probe writes these) is GpuSpec's
// format: its name, source and base, then every figure gpuSpecFields
// gives, in that order.
TEST(GpuSpec, SharedKeyTableIsTheFormatsKeys) {
  std::vector<std::string> keys = {"name", "source", "base"};
  for (const auto &[key, value] : perf::gpuSpecFields(*perf::lookupGpu("A100")))
    keys.push_back(key.str());
  std::vector<std::string> shared(std::begin(perf::kGpuSpecJsonKeys),
                                  std::end(perf::kGpuSpecJsonKeys));
  EXPECT_EQ(keys, shared);
}
