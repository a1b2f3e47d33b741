//===- BenchSignatureTest.cpp - perf-bench keys as lib/ writes them ------===//
//
// perf-bench (runtime/bench, built without LLVM) keys what it measures with
// its own per-kind rules; the cost models look rows up by the signatures
// WorkKinds.td defines. Both must name the same fields in the same order
// (the fused convolution is keyed like conv2d).
//
//===----------------------------------------------------------------------===//

#include "bench/Kernel.h"
#include "perf/Support/KernelDesc.h"
#include "perf/Support/KernelSignature.h"
#include "perf/Support/SignatureFields.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {

TEST(BenchSignature, FieldsAreWorkKindsTable) {
  for (const std::string &kind : bench::benchKinds()) {
    std::string names;
    for (const std::string &name : bench::signatureFieldNames(kind))
      names += (names.empty() ? "" : " ") + name;
    std::string_view expected = signatureFieldsOf(
        kind == "conv2d_bias_relu" ? std::string_view("conv2d") : kind);
    EXPECT_FALSE(expected.empty()) << kind;
    EXPECT_EQ(names, std::string(expected)) << kind;
  }
}

// A key perf-bench builds reads back in lib/ as the kernel it measured.
TEST(BenchSignature, GemmKeyReadsBack) {
  bench::Kernel kernel;
  std::string error;
  bench::AttrMap attrs{{"m", bench::AttrValue::ofInt(64)},
                       {"n", bench::AttrValue::ofInt(512)},
                       {"k", bench::AttrValue::ofInt(256)},
                       {"trans_a", bench::AttrValue::ofInt(1)}};
  ASSERT_TRUE(
      bench::buildKernel("gemm", "bf16", attrs, /*strict=*/true, kernel, error))
      << error;
  EXPECT_EQ(kernel.signature(), "b=1 m=64 n=512 k=256 ta=1 tb=0");
  llvm::Expected<KernelDesc> d =
      parseKernelSignature(kernel.kind, kernel.signature());
  ASSERT_TRUE(bool(d)) << llvm::toString(d.takeError());
  EXPECT_EQ(d->kind, KernelKind::Gemm);
  EXPECT_EQ(d->m, 64);
  EXPECT_EQ(d->n, 512);
  EXPECT_EQ(d->k, 256);
  EXPECT_TRUE(d->transA);
  EXPECT_EQ(kernelSignature(*d), kernel.signature());
}

} // namespace
