//===- KernelBuilderTest.cpp - desc -> work -> desc for every kernel kind -===//
//
// buildKernelWork is the inverse of getKernelDesc: every field of a kind
// survives the round trip, the work verifies, and its FLOPs and bytes are
// the description's.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "perf/Comm/NcclTuner.h"
#include "perf/Dialect/PerfOps.h"
#include "gtest/gtest.h"

using namespace perf;
using namespace mlir;

namespace {
class KernelBuilder : public ::testing::Test {
protected:
  KernelBuilder() { context.loadDialect<PerfDialect>(); }

  /// Whether `work` passes the verifier.
  bool verifies(WorkAttr work) {
    return succeeded(
        WorkAttr::verify([&]() { return emitError(UnknownLoc::get(&context)); },
                         work.getKind(), work.getAttrs()));
  }

  /// Whether `d` describes no kernel: nothing built and no error.
  bool buildsNothing(const KernelDesc &d) {
    FailureOr<WorkAttr> work = buildKernelWork(&context, d);
    return succeeded(work) && !*work;
  }

  /// Builds `d` and reads it back; the work must verify.
  KernelDesc roundTrip(const KernelDesc &d) {
    FailureOr<WorkAttr> built = buildKernelWork(&context, d);
    WorkAttr work = succeeded(built) ? *built : WorkAttr();
    EXPECT_TRUE(work) << kernelKindName(d.kind).str();
    if (!work)
      return {};
    EXPECT_TRUE(verifies(work)) << kernelKindName(d.kind).str();
    KernelDesc back = work.getKernelDesc();
    EXPECT_DOUBLE_EQ(back.totalFlops(), d.totalFlops());
    EXPECT_DOUBLE_EQ(back.totalBytes(), d.totalBytes());
    return back;
  }

  MLIRContext context;
};

KernelDesc desc(KernelKind kind, DType dtype = DType::F16) {
  KernelDesc d;
  d.kind = kind;
  d.dtype = dtype;
  return d;
}

TEST_F(KernelBuilder, Gemm) {
  KernelDesc d = desc(KernelKind::Gemm, DType::BF16);
  d.batch = 12;
  d.m = 1024;
  d.n = 64;
  d.k = 1024;
  d.transA = true;
  d.tensorCores = true;
  d.pass = KernelPass::BackwardWeight;
  d.name = "sm90_xmma_gemm_bf16";
  KernelDesc r = roundTrip(d);
  EXPECT_EQ(r.kind, KernelKind::Gemm);
  EXPECT_EQ(r.dtype, DType::BF16);
  EXPECT_EQ(r.batch, 12);
  EXPECT_EQ(r.m, 1024);
  EXPECT_EQ(r.n, 64);
  EXPECT_EQ(r.k, 1024);
  EXPECT_TRUE(r.transA);
  EXPECT_FALSE(r.transB);
  EXPECT_TRUE(r.tensorCores);
  EXPECT_EQ(r.pass, KernelPass::BackwardWeight);
  EXPECT_EQ(r.name, "sm90_xmma_gemm_bf16");
  // 2 * 12 * 1024 * 64 * 1024 FLOPs.
  EXPECT_DOUBLE_EQ(r.totalFlops(), 1610612736.0);
}

TEST_F(KernelBuilder, Conv2dAndPooling) {
  KernelDesc d = desc(KernelKind::Conv2d, DType::F32);
  d.batch = 8;
  d.c = 64;
  d.h = 56;
  d.w = 56;
  d.outChannels = 128;
  d.r = d.s = 3;
  d.strideH = d.strideW = 2;
  d.padH = d.padW = 1;
  d.dilationH = 2;
  d.groups = 2;
  d.pass = KernelPass::BackwardData;
  KernelDesc r = roundTrip(d);
  EXPECT_EQ(r.kind, KernelKind::Conv2d);
  EXPECT_EQ(r.outChannels, 128);
  EXPECT_EQ(r.strideH, 2);
  EXPECT_EQ(r.padW, 1);
  EXPECT_EQ(r.dilationH, 2);
  EXPECT_EQ(r.dilationW, 1);
  EXPECT_EQ(r.groups, 2);
  EXPECT_EQ(r.pass, KernelPass::BackwardData);

  KernelDesc p = desc(KernelKind::Pooling);
  p.batch = 8;
  p.c = 64;
  p.h = p.w = 112;
  p.r = p.s = 3;
  p.strideH = p.strideW = 2;
  p.padH = p.padW = 1;
  KernelDesc q = roundTrip(p);
  EXPECT_EQ(q.kind, KernelKind::Pooling);
  EXPECT_EQ(q.outH(), 56);
  EXPECT_EQ(q.padH, 1);
}

TEST_F(KernelBuilder, ElementwiseKeepsItsOperation) {
  KernelDesc d = desc(KernelKind::Elementwise);
  d.numElements = 4096;
  d.numInputs = 2;
  d.flopsPerElement = 8;
  d.op = "gelu";
  d.pass = KernelPass::BackwardData;
  KernelDesc r = roundTrip(d);
  EXPECT_EQ(r.numElements, 4096);
  EXPECT_EQ(r.numInputs, 2);
  EXPECT_DOUBLE_EQ(r.flopsPerElement, 8);
  EXPECT_EQ(r.op, "gelu");
  EXPECT_EQ(r.pass, KernelPass::BackwardData);
}

TEST_F(KernelBuilder, RowsColsKinds) {
  for (KernelKind kind :
       {KernelKind::Reduce, KernelKind::Softmax, KernelKind::LayerNorm}) {
    KernelDesc d = desc(kind);
    d.rows = 8192;
    d.cols = 1280;
    KernelDesc r = roundTrip(d);
    EXPECT_EQ(r.kind, kind);
    EXPECT_EQ(r.rows, 8192);
    EXPECT_EQ(r.cols, 1280);
  }
}

TEST_F(KernelBuilder, EmbeddingMemcpyAndElementKinds) {
  KernelDesc e = desc(KernelKind::EmbeddingBag, DType::F32);
  e.numTables = 8;
  e.tableRows = 1000000;
  e.dim = 128;
  e.batch = 2048;
  e.pooling = 20;
  e.pass = KernelPass::BackwardData;
  KernelDesc r = roundTrip(e);
  EXPECT_EQ(r.numTables, 8);
  EXPECT_EQ(r.tableRows, 1000000);
  EXPECT_EQ(r.pooling, 20);
  EXPECT_EQ(r.pass, KernelPass::BackwardData);

  KernelDesc m = desc(KernelKind::Memcpy);
  m.bytes = 1 << 20;
  m.copyKind = MemcpyKind::HostToDevice;
  r = roundTrip(m);
  EXPECT_EQ(r.copyKind, MemcpyKind::HostToDevice);
  EXPECT_DOUBLE_EQ(r.bytes, 1 << 20);

  for (KernelKind kind : {KernelKind::Transpose, KernelKind::Concat}) {
    KernelDesc t = desc(kind);
    t.numElements = 777;
    EXPECT_EQ(roundTrip(t).numElements, 777);
  }
  KernelDesc bn = desc(KernelKind::BatchNorm);
  bn.numElements = 1 << 16;
  bn.c = 64;
  bn.flopsPerElement = 5; // what getKernelDesc gives a batchnorm
  EXPECT_EQ(roundTrip(bn).c, 64);
}

TEST_F(KernelBuilder, AttentionOptimizerGeneric) {
  KernelDesc a = desc(KernelKind::Attention, DType::BF16);
  a.batch = 4;
  a.heads = 20;
  a.m = 1024;
  a.k = 64;
  KernelDesc r = roundTrip(a);
  EXPECT_EQ(r.heads, 20);
  EXPECT_EQ(r.m, 1024);
  EXPECT_EQ(r.k, 64);
  EXPECT_EQ(r.n, 0);
  // A decode step: one query over 2048 cached keys. 4 x 20 heads x
  // (4 x 1 x 2048 x 64 + 5 x 2048) FLOPs; Q and O of one row and K and V of
  // 2048 rows of 64 bf16 values.
  a.m = 1;
  a.n = 2048;
  r = roundTrip(a);
  EXPECT_EQ(r.m, 1);
  EXPECT_EQ(r.n, 2048);
  EXPECT_DOUBLE_EQ(r.totalFlops(), 80.0 * (4.0 * 2048 * 64 + 5.0 * 2048));
  EXPECT_DOUBLE_EQ(r.totalBytes(), 80.0 * 2 * 2 * (1 + 2048) * 64);

  KernelDesc o = desc(KernelKind::Optimizer, DType::F32);
  o.numElements = 1000;
  o.op = "adam";
  o.pass = KernelPass::Update;
  o.numInputs = 4; // what getKernelDesc gives adam
  o.flopsPerElement = 12;
  r = roundTrip(o);
  EXPECT_EQ(r.op, "adam");
  EXPECT_EQ(r.pass, KernelPass::Update);

  KernelDesc g = desc(KernelKind::Generic);
  g.flops = 1e9;
  g.bytes = 2e6;
  g.op = "cumsum";
  r = roundTrip(g);
  EXPECT_DOUBLE_EQ(r.flops, 1e9);
  EXPECT_EQ(r.op, "cumsum");
}

TEST_F(KernelBuilder, OverriddenWorkBecomesGeneric) {
  KernelDesc d = desc(KernelKind::Elementwise);
  d.numElements = 10;
  d.flops = 300;
  d.bytes = 40;
  KernelDesc r = roundTrip(d);
  EXPECT_EQ(r.kind, KernelKind::Generic);
  EXPECT_DOUBLE_EQ(r.flops, 300);
  EXPECT_DOUBLE_EQ(r.bytes, 40);
}

TEST_F(KernelBuilder, InvalidSizesBuildNothing) {
  KernelDesc gemm = desc(KernelKind::Gemm);
  gemm.m = 16;
  gemm.n = 0;
  gemm.k = 16;
  EXPECT_TRUE(buildsNothing(gemm));
  // A 7x7 filter over an unpadded 5x5 input has no output.
  KernelDesc conv = desc(KernelKind::Conv2d);
  conv.batch = conv.c = conv.outChannels = 1;
  conv.h = conv.w = 5;
  conv.r = conv.s = 7;
  EXPECT_TRUE(buildsNothing(conv));
  // Groups must divide the channels.
  conv.r = conv.s = 3;
  conv.c = 3;
  conv.groups = 2;
  EXPECT_TRUE(buildsNothing(conv));
}

// Sizes above max-extent (2^40) break the schema: the build fails (an
// unchecked build would assert, or make IR perf-opt cannot read back) and
// the schema's error is reported, through the caller's emitter when it
// gives one.
TEST_F(KernelBuilder, SizesAboveMaxExtentAreErrors) {
  std::vector<std::string> reported;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
    reported.push_back(diag.str());
    return success();
  });
  KernelDesc e = desc(KernelKind::Elementwise);
  e.numElements = (int64_t(1) << 40) + 1;
  EXPECT_TRUE(failed(buildKernelWork(&context, e)));
  EXPECT_TRUE(failed(buildKernelWork(&context, e, [&] {
    return emitError(UnknownLoc::get(&context)) << "relu: ";
  })));
  CollectiveDesc c;
  c.bytes = (int64_t(1) << 40) + 1;
  EXPECT_TRUE(failed(buildCollectiveWork(&context, c, {0, 1}, [&] {
    return emitError(UnknownLoc::get(&context)) << "all_reduce: ";
  })));
  std::string elements = "'perf.elementwise' attribute 'elements' failed to "
                         "satisfy constraint: a positive 64-bit integer at "
                         "most max-extent (2^40)";
  EXPECT_EQ(
      reported,
      (std::vector<std::string>{
          elements, "relu: " + elements,
          "all_reduce: 'perf.all_reduce' attribute 'bytes' failed to satisfy "
          "constraint: a non-negative 64-bit integer at most "
          "max-extent (2^40)"}));
  e.numElements = int64_t(1) << 40;
  FailureOr<WorkAttr> atLimit = buildKernelWork(&context, e);
  EXPECT_TRUE(succeeded(atLimit) && *atLimit);
  EXPECT_EQ(reported.size(), 3u);
}

TEST_F(KernelBuilder, UnknownOptimizerBuildsNothing) {
  KernelDesc o = desc(KernelKind::Optimizer, DType::F32);
  o.numElements = 1000;
  o.op = "lamb";
  EXPECT_TRUE(buildsNothing(o));
}

// The IR's enums and the MLIR-free cost core name the same things: every
// keyword the IR accepts maps to the core's value and back.
TEST(KernelEnums, IrKeywordsMatchTheCostCore) {
  for (uint32_t i = 0; i <= getMaxEnumValForTrainingPass(); ++i) {
    std::optional<TrainingPass> pass = symbolizeTrainingPass(i);
    ASSERT_TRUE(pass);
    std::optional<KernelPass> core =
        parseKernelPass(stringifyTrainingPass(*pass));
    ASSERT_TRUE(core) << stringifyTrainingPass(*pass).str();
  }
  EXPECT_EQ(parseKernelPass(stringifyTrainingPass(TrainingPass::Dgrad)),
            KernelPass::BackwardData);
  EXPECT_EQ(parseKernelPass(stringifyTrainingPass(TrainingPass::Bwd)),
            KernelPass::BackwardData);
  EXPECT_EQ(parseKernelPass(stringifyTrainingPass(TrainingPass::Wgrad)),
            KernelPass::BackwardWeight);
  for (uint32_t i = 0; i <= getMaxEnumValForCopyDirection(); ++i) {
    CopyDirection dir = *symbolizeCopyDirection(i);
    std::optional<MemcpyKind> core =
        parseMemcpyKind(stringifyCopyDirection(dir));
    ASSERT_TRUE(core);
    EXPECT_EQ(memcpyKindName(*core), stringifyCopyDirection(dir));
  }
  // Same order as NCCL's NCCL_ALGO_* and the tuner's enum.
  for (uint32_t i = 0; i <= getMaxEnumValForNcclAlgorithm(); ++i) {
    NcclAlgorithm algo = *symbolizeNcclAlgorithm(i);
    std::optional<CollectiveAlgorithm> core =
        parseCollectiveAlgorithm(stringifyNcclAlgorithm(algo));
    ASSERT_TRUE(core) << stringifyNcclAlgorithm(algo).str();
    EXPECT_EQ(uint32_t(*core), i);
    EXPECT_EQ(collectiveAlgorithmName(*core), stringifyNcclAlgorithm(algo));
  }
  EXPECT_EQ(getMaxEnumValForNcclAlgorithm(),
            uint32_t(CollectiveAlgorithm::Auto));
}

TEST_F(KernelBuilder, Collectives) {
  CollectiveDesc c;
  c.kind = CollectiveKind::ReduceScatter;
  c.bytes = 4096;
  c.dtype = DType::BF16;
  FailureOr<WorkAttr> built = buildCollectiveWork(&context, c, {0, 1, 2, 3});
  ASSERT_TRUE(succeeded(built) && *built);
  WorkAttr collective = *built;
  EXPECT_EQ(collective.getKind(), WorkKind::ReduceScatter);
  EXPECT_TRUE(collective.isCollective());
  EXPECT_EQ(collective.getCollectiveBytes(), 4096);
  EXPECT_EQ(collective.getGroupIds().size(), 4u);
  CollectiveDesc back = collective.getCollectiveDesc();
  EXPECT_EQ(back.kind, CollectiveKind::ReduceScatter);
  EXPECT_EQ(back.dtype, DType::BF16);
  EXPECT_EQ(back.bytes, 4096);
  EXPECT_EQ(back.groupSize, 4);
  EXPECT_TRUE(verifies(collective));
  // Left out, not an error: no size, no group, or a kind without work.
  auto leftOut = [&](const CollectiveDesc &d, ArrayRef<int64_t> group) {
    FailureOr<WorkAttr> work = buildCollectiveWork(&context, d, group);
    return succeeded(work) && !*work;
  };
  EXPECT_TRUE(leftOut(c, {}));
  c.kind = CollectiveKind::Broadcast;
  EXPECT_TRUE(leftOut(c, {0, 1}));
  c.kind = CollectiveKind::AllReduce;
  c.bytes = 0;
  EXPECT_TRUE(leftOut(c, {0, 1}));
}
} // namespace
