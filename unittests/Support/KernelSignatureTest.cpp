#include "perf/Support/KernelSignature.h"
#include "perf/Support/SignatureFields.h"
#include "llvm/ADT/SmallVector.h"
#include "gtest/gtest.h"

using namespace perf;

TEST(KernelSignature, MatchesPerfDbDoc) {
  KernelDesc g;
  g.kind = KernelKind::Gemm;
  g.batch = 4;
  g.m = 128;
  g.n = 256;
  g.k = 64;
  g.transB = true;
  EXPECT_EQ(kernelSignature(g), "b=4 m=128 n=256 k=64 ta=0 tb=1");

  KernelDesc c;
  c.kind = KernelKind::Conv2d;
  c.pass = KernelPass::BackwardWeight;
  c.batch = 32;
  c.c = 64;
  c.h = c.w = 56;
  c.outChannels = 128;
  c.r = c.s = 3;
  c.padH = c.padW = 1;
  EXPECT_EQ(kernelSignature(c), "n=32 c=64 h=56 w=56 k=128 r=3 s=3 sh=1 sw=1 "
                                "ph=1 pw=1 dh=1 dw=1 g=1 pass=wgrad");

  KernelDesc e;
  e.kind = KernelKind::Elementwise;
  e.numElements = 1000;
  e.numInputs = 2;
  e.op = "add";
  EXPECT_EQ(kernelSignature(e), "n=1000 in=2 op=add");

  KernelDesc eb;
  eb.kind = KernelKind::EmbeddingBag;
  eb.numTables = 8;
  eb.tableRows = 100000;
  eb.dim = 64;
  eb.batch = 2048;
  eb.pooling = 20;
  eb.pass = KernelPass::BackwardData;
  EXPECT_EQ(kernelSignature(eb), "t=8 rows=100000 d=64 b=2048 l=20 pass=bwd");

  KernelDesc m;
  m.kind = KernelKind::Memcpy;
  m.copyKind = MemcpyKind::HostToDevice;
  m.bytes = 4096;
  EXPECT_EQ(kernelSignature(m), "bytes=4096 dir=h2d");

  KernelDesc s;
  s.kind = KernelKind::Softmax;
  s.rows = 16;
  s.cols = 1024;
  EXPECT_EQ(kernelSignature(s), "rows=16 cols=1024");
}

TEST(KernelSignature, ParsesBack) {
  for (auto [kind, sig] : std::vector<std::pair<std::string, std::string>>{
           {"gemm", "b=4 m=128 n=256 k=64 ta=0 tb=1"},
           {"conv2d", "n=32 c=64 h=56 w=56 k=128 r=3 s=3 sh=2 sw=2 ph=1 pw=1 "
                      "dh=1 dw=1 g=1 pass=dgrad"},
           {"elementwise", "n=1000 in=1 op=gelu"},
           {"embedding_bag", "t=8 rows=100000 d=64 b=2048 l=20 pass=fwd"},
           {"layernorm", "rows=16 cols=1024"},
           {"memcpy", "bytes=4096 dir=d2h"},
           {"transpose", "n=77"}}) {
    auto desc = parseKernelSignature(kind, sig);
    ASSERT_TRUE(bool(desc)) << llvm::toString(desc.takeError());
    EXPECT_EQ(kernelKindName(desc->kind), kind);
    EXPECT_EQ(kernelSignature(*desc), sig);
  }
  auto bad = parseKernelSignature("gemm", "b=x");
  ASSERT_FALSE(bool(bad));
  llvm::consumeError(bad.takeError());
  auto unknown = parseKernelSignature("nonsense", "n=1");
  ASSERT_FALSE(bool(unknown));
  llvm::consumeError(unknown.takeError());
}

// The signature of every kind has the fields, in the order, of the shared
// table perf-bench's key rules are also tested against.
TEST(KernelSignature, FieldsAreTheSharedTables) {
  for (KernelKind kind :
       {KernelKind::Gemm, KernelKind::Conv2d, KernelKind::Elementwise,
        KernelKind::Reduce, KernelKind::Softmax, KernelKind::LayerNorm,
        KernelKind::EmbeddingBag, KernelKind::Memcpy, KernelKind::Transpose,
        KernelKind::Concat, KernelKind::Attention, KernelKind::Pooling,
        KernelKind::BatchNorm, KernelKind::Optimizer, KernelKind::Generic}) {
    KernelDesc d;
    d.kind = kind;
    // Keys written only when set (SetFlagKey) are set.
    d.strided = true;
    std::string keys;
    llvm::SmallVector<llvm::StringRef> tokens;
    std::string signature = kernelSignature(d);
    llvm::StringRef(signature).split(tokens, ' ');
    for (llvm::StringRef token : tokens)
      keys += (keys.empty() ? "" : " ") + token.split('=').first.str();
    std::string_view expected = signatureFieldsOf(kernelKindName(kind).str());
    EXPECT_FALSE(expected.empty()) << kernelKindName(kind).str();
    EXPECT_EQ(keys, std::string(expected)) << kernelKindName(kind).str();
  }
}
