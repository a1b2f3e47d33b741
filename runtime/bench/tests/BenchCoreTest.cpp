//===- BenchCoreTest.cpp - perf-bench's non-GPU parts ---------------------===//

#include "bench/Database.h"
#include "bench/DeviceFile.h"
#include "bench/Kernel.h"
#include "bench/Runner.h"
#include "bench/Spec.h"
#include "bench/Stats.h"

#include "gtest/gtest.h"
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sqlite3.h>
#include <sstream>
#include <unistd.h>

using namespace bench;

namespace {

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "perf-bench-" + std::to_string(getpid()) + "-" +
         name;
}

void removeDb(const std::string &path) {
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
}

Kernel gemm(int64_t m, int64_t n, int64_t k, const char *dtype = "f32") {
  AttrMap attrs = {{"m", AttrValue::ofInt(m)},
                   {"n", AttrValue::ofInt(n)},
                   {"k", AttrValue::ofInt(k)}};
  Kernel out;
  std::string error;
  EXPECT_TRUE(buildKernel("gemm", dtype, attrs, true, out, error)) << error;
  return out;
}

//===--- JSON -------------------------------------------------------------===//

TEST(Json, ParsesAndKeepsKeyOrder) {
  nlohmann::ordered_json v;
  std::string error;
  ASSERT_TRUE(parseJsonText(
      R"({"z": [1, 2.5, "a\nb"], "a": {"t": true}, "n": null})", v, error))
      << error;
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v.begin().key(), "z");
  EXPECT_EQ(std::next(v.begin()).key(), "a");
  EXPECT_EQ(v["z"][2], "a\nb");
  EXPECT_EQ(v.dump(), R"({"z":[1,2.5,"a\nb"],"a":{"t":true},"n":null})");
}

TEST(Json, ErrorsNameLineAndColumn) {
  nlohmann::ordered_json v;
  std::string error;
  EXPECT_FALSE(parseJsonText("{\n  \"a\": 1,\n  \"b\" 2\n}", v, error));
  EXPECT_EQ(error.rfind("line 3, column 7: syntax error", 0), 0u) << error;
  EXPECT_NE(error.find("expected ':'"), std::string::npos) << error;
  EXPECT_FALSE(parseJsonText("[1, 2", v, error));
  EXPECT_EQ(error.rfind("line 1, column 6: ", 0), 0u) << error;
  EXPECT_FALSE(parseJsonText("\n\n  @", v, error));
  EXPECT_EQ(error.rfind("line 3, column 3: ", 0), 0u) << error;
  // A repeated key would be merged by the parser; it is refused (the
  // escaped spelling is the same key).
  EXPECT_FALSE(parseJsonText("{\"a\": 1,\n \"b\": {\"a\": 2, \"\\u0061\": 3}}",
                             v, error));
  EXPECT_EQ(error, "duplicate key 'a'");
  EXPECT_TRUE(parseJsonText(R"([{"a": 1}, {"a": 2}, "a", "a"])", v, error))
      << error;
}

TEST(Json, RefusesDeepNesting) {
  nlohmann::ordered_json v;
  std::string error;
  std::string ok =
      std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(parseJsonText(ok, v, error)) << error;
  // Brackets inside strings do not count.
  EXPECT_TRUE(parseJsonText("[\"" + std::string(10000, '[') + "\"]", v, error))
      << error;
  std::string deep(100000, '[');
  EXPECT_FALSE(parseJsonText(deep, v, error));
  EXPECT_EQ(error, "nesting deeper than 512");
  EXPECT_FALSE(parseJsonText("{\"k\": " + std::string(600, '['), v, error));
  EXPECT_EQ(error, "nesting deeper than 512");
}

//===--- Signatures -------------------------------------------------------===//

TEST(Signature, GemmDefaults) {
  Kernel k = gemm(64, 512, 256);
  EXPECT_EQ(k.signature(), "b=1 m=64 n=512 k=256 ta=0 tb=0");
  EXPECT_EQ(k.key(), "f32|gemm|b=1 m=64 n=512 k=256 ta=0 tb=0");
  EXPECT_EQ(k.num("m"), 64);
}

TEST(Signature, Conv2dFromPairsAndScalars) {
  AttrMap attrs = {{"n", AttrValue::ofInt(32)},
                   {"c", AttrValue::ofInt(64)},
                   {"h", AttrValue::ofInt(56)},
                   {"w", AttrValue::ofInt(28)},
                   {"k", AttrValue::ofInt(128)},
                   {"r", AttrValue::ofInt(3)},
                   {"s", AttrValue::ofInt(1)},
                   {"stride", AttrValue::ofArray({2, 1})},
                   {"pad", AttrValue::ofInt(1)},
                   {"groups", AttrValue::ofInt(2)},
                   {"pass", AttrValue::ofString("wgrad")},
                   {"dtype", AttrValue::ofString("half")}};
  Kernel k;
  std::string error;
  ASSERT_TRUE(buildKernel("conv2d", "f32", attrs, true, k, error)) << error;
  EXPECT_EQ(k.dtype, "f16");
  EXPECT_EQ(k.signature(), "n=32 c=64 h=56 w=28 k=128 r=3 s=1 sh=2 sw=1 ph=1 "
                           "pw=1 dh=1 dw=1 g=2 pass=wgrad");
}

TEST(Signature, OtherKinds) {
  Kernel k;
  std::string error;
  ASSERT_TRUE(buildKernel("embedding_bag", "f16",
                          {{"tables", AttrValue::ofInt(8)},
                           {"rows", AttrValue::ofInt(1000000)},
                           {"dim", AttrValue::ofInt(64)},
                           {"batch", AttrValue::ofInt(2048)},
                           {"pooling", AttrValue::ofInt(32)},
                           {"pass", AttrValue::ofString("bwd")}},
                          true, k, error));
  EXPECT_EQ(k.signature(), "t=8 rows=1000000 d=64 b=2048 l=32 pass=bwd");
  ASSERT_TRUE(buildKernel(
      "memcpy", "",
      {{"bytes", AttrValue::ofInt(4096)}, {"kind", AttrValue::ofString("h2d")}},
      true, k, error));
  EXPECT_EQ(k.signature(), "bytes=4096 dir=h2d");
  EXPECT_EQ(k.dtype, "f32");
  ASSERT_TRUE(buildKernel("elementwise", "bf16",
                          {{"elements", AttrValue::ofInt(1024)},
                           {"inputs", AttrValue::ofInt(2)},
                           {"op", AttrValue::ofString("mul")}},
                          true, k, error));
  EXPECT_EQ(k.signature(), "n=1024 in=2 op=mul");
  // `st` is written only when set: the keys measured before it still match.
  ASSERT_TRUE(buildKernel("elementwise", "bf16",
                          {{"elements", AttrValue::ofInt(1024)},
                           {"inputs", AttrValue::ofInt(2)},
                           {"op", AttrValue::ofString("add")},
                           {"strided", AttrValue::ofInt(0)}},
                          true, k, error));
  EXPECT_EQ(k.signature(), "n=1024 in=2 op=add");
  ASSERT_TRUE(buildKernel(
      "concat", "bf16",
      {{"elements", AttrValue::ofInt(64)}, {"strided", AttrValue::ofInt(1)}},
      true, k, error));
  EXPECT_EQ(k.signature(), "n=64 st=1");
  EXPECT_FALSE(buildKernel(
      "concat", "bf16",
      {{"elements", AttrValue::ofInt(64)}, {"strided", AttrValue::ofInt(2)}},
      true, k, error));
  EXPECT_EQ(error, "concat: attribute 'strided' must be 0 or 1");
  ASSERT_TRUE(buildKernel(
      "layernorm", "f32",
      {{"rows", AttrValue::ofInt(7)}, {"cols", AttrValue::ofInt(9)}}, true, k,
      error));
  EXPECT_EQ(k.signature(), "rows=7 cols=9");
  ASSERT_TRUE(buildKernel("transpose", "f32",
                          {{"elements", AttrValue::ofInt(100)}}, true, k,
                          error));
  EXPECT_EQ(k.signature(), "n=100");
}

TEST(Signature, RejectsBadAttributes) {
  Kernel k;
  std::string error;
  EXPECT_FALSE(
      buildKernel("gemm", "f32", {{"m", AttrValue::ofInt(1)}}, true, k, error));
  EXPECT_EQ(error, "gemm: missing attribute 'n'");
  EXPECT_FALSE(buildKernel("conv2d", "f32",
                           {{"n", AttrValue::ofInt(1)},
                            {"c", AttrValue::ofInt(1)},
                            {"h", AttrValue::ofInt(1)},
                            {"w", AttrValue::ofInt(1)},
                            {"k", AttrValue::ofInt(1)},
                            {"r", AttrValue::ofInt(1)},
                            {"s", AttrValue::ofInt(1)},
                            {"pass", AttrValue::ofString("bwd")}},
                           true, k, error));
  EXPECT_EQ(error, "conv2d: attribute 'pass' is 'bwd', expected one of "
                   "fwd|dgrad|wgrad");
  EXPECT_FALSE(buildKernel("gemm", "f32",
                           {{"m", AttrValue::ofInt(0)},
                            {"n", AttrValue::ofInt(1)},
                            {"k", AttrValue::ofInt(1)}},
                           true, k, error));
  EXPECT_EQ(error, "gemm: attribute 'm' must be positive, got 0");
  EXPECT_FALSE(buildKernel("reduce", "f32",
                           {{"rows", AttrValue::ofInt(1)},
                            {"cols", AttrValue::ofInt(1)},
                            {"colz", AttrValue::ofInt(1)}},
                           true, k, error));
  EXPECT_EQ(error, "reduce: unknown attribute 'colz'");
  EXPECT_FALSE(buildKernel("attention", "f32", {}, true, k, error));
  EXPECT_FALSE(buildKernel("gemm", "f17",
                           {{"m", AttrValue::ofInt(1)},
                            {"n", AttrValue::ofInt(1)},
                            {"k", AttrValue::ofInt(1)}},
                           true, k, error));
  EXPECT_EQ(error, "unknown dtype 'f17'");
}

TEST(Signature, CanonicalDtypes) {
  EXPECT_EQ(canonicalDtype("FP16"), "f16");
  EXPECT_EQ(canonicalDtype("bfloat16"), "bf16");
  EXPECT_EQ(canonicalDtype("float"), "f32");
  EXPECT_EQ(canonicalDtype("tf32"), "tf32");
  EXPECT_EQ(canonicalDtype("f8E4M3FN"), "f8");
  EXPECT_EQ(canonicalDtype("complex64"), "");
}

/// The signature keys of each kind, in order, must be those of the table in
/// docs/perf-db.md: the cost model's lookup builds the same strings.
TEST(Signature, MatchesPerfDbDocument) {
  std::string doc;
  std::string error;
  std::string path = std::string(PERF_SOURCE_DIR) + "/docs/perf-db.md";
  if (!readFile(path, doc, error))
    GTEST_SKIP() << "no " << path;
  std::map<std::string, std::vector<std::string>> documented;
  std::regex row(R"(\|\s*([a-z_0-9, ]+?)\s*\|\s*`([^`]+)`\s*\|)");
  std::regex keyRe(R"(([a-z]+)=)");
  for (std::sregex_iterator it(doc.begin(), doc.end(), row), end; it != end;
       ++it) {
    std::vector<std::string> keys;
    std::string sig = (*it)[2];
    for (std::sregex_iterator k(sig.begin(), sig.end(), keyRe); k != end; ++k)
      keys.push_back((*k)[1]);
    std::stringstream kinds((*it)[1]);
    std::string kind;
    while (std::getline(kinds, kind, ','))
      documented[kind.substr(kind.find_first_not_of(' '))] = keys;
  }
  ASSERT_GE(documented.size(), 10u);
  // A kernel of each kind with every attribute set.
  std::map<std::string, AttrMap> samples = {
      {"gemm",
       {{"m", AttrValue::ofInt(2)},
        {"n", AttrValue::ofInt(3)},
        {"k", AttrValue::ofInt(4)}}},
      {"conv2d",
       {{"n", AttrValue::ofInt(1)},
        {"c", AttrValue::ofInt(1)},
        {"h", AttrValue::ofInt(1)},
        {"w", AttrValue::ofInt(1)},
        {"k", AttrValue::ofInt(1)},
        {"r", AttrValue::ofInt(1)},
        {"s", AttrValue::ofInt(1)}}},
      {"elementwise",
       {{"elements", AttrValue::ofInt(4)},
        {"op", AttrValue::ofString("add")},
        {"strided", AttrValue::ofInt(1)}}},
      {"reduce",
       {{"rows", AttrValue::ofInt(1)}, {"cols", AttrValue::ofInt(1)}}},
      {"softmax",
       {{"rows", AttrValue::ofInt(1)}, {"cols", AttrValue::ofInt(1)}}},
      {"layernorm",
       {{"rows", AttrValue::ofInt(1)}, {"cols", AttrValue::ofInt(1)}}},
      {"embedding_bag",
       {{"rows", AttrValue::ofInt(1)},
        {"dim", AttrValue::ofInt(1)},
        {"batch", AttrValue::ofInt(1)},
        {"pooling", AttrValue::ofInt(1)}}},
      {"memcpy",
       {{"bytes", AttrValue::ofInt(1)}, {"dir", AttrValue::ofString("d2d")}}},
      {"transpose", {{"elements", AttrValue::ofInt(1)}}},
      {"concat",
       {{"elements", AttrValue::ofInt(1)}, {"strided", AttrValue::ofInt(1)}}},
      {"batchnorm",
       {{"elements", AttrValue::ofInt(8)}, {"c", AttrValue::ofInt(2)}}},
      {"optimizer",
       {{"elements", AttrValue::ofInt(8)},
        {"op", AttrValue::ofString("adam")}}},
      {"rope",
       {{"tokens", AttrValue::ofInt(16)},
        {"heads", AttrValue::ofInt(32)},
        {"kv_heads", AttrValue::ofInt(8)},
        {"head_dim", AttrValue::ofInt(128)},
        {"rotary_dim", AttrValue::ofInt(64)}}},
      {"kv_cache_write",
       {{"tokens", AttrValue::ofInt(16)},
        {"kv_heads", AttrValue::ofInt(8)},
        {"head_dim", AttrValue::ofInt(128)},
        {"block_size", AttrValue::ofInt(16)}}}};
  samples["conv2d_bias_relu"] = samples["conv2d"];
  samples["pooling"] = samples["conv2d"];
  samples["pooling"].erase("k");
  for (const std::string &kind : benchKinds()) {
    // The fused convolution is keyed like conv2d.
    std::string docKind = kind == "conv2d_bias_relu" ? "conv2d" : kind;
    ASSERT_TRUE(documented.count(docKind)) << kind << " not in " << path;
    Kernel k;
    ASSERT_TRUE(buildKernel(kind, "f32", samples[kind], true, k, error))
        << error;
    std::vector<std::string> keys;
    for (const auto &f : k.fields)
      keys.push_back(f.first);
    EXPECT_EQ(keys, documented[docKind]) << kind;
  }
}

//===--- Sweep specs ------------------------------------------------------===//

TEST(Sweep, ExpandsCartesianProductInOrder) {
  SweepSpec spec;
  std::string error;
  ASSERT_TRUE(parseSweepSpec(
      R"({"reps": 20, "kernels": [
        {"kind": "gemm", "dtype": ["f16", "bf16"], "m": [64, 128], "n": 32,
         "k": {"from": 16, "to": 64, "mul": 2}},
        {"kind": "gemm", "dtype": "f16", "m": 64, "n": 32, "k": 16},
        {"kind": "conv2d", "n": 1, "c": 3, "h": 8, "w": 8, "k": 4, "r": 3, "s": 3,
         "stride": [[1, 1], [2, 2]], "pad": [1, 0]}]})",
      "t.json", spec, error))
      << error;
  EXPECT_EQ(spec.reps, 20);
  EXPECT_EQ(spec.warmup, -1);
  // 2 dtypes x 2 m x 3 k, the repeated f16 64x32x16 once, 2 conv strides.
  ASSERT_EQ(spec.kernels.size(), 14u);
  EXPECT_EQ(spec.kernels[0].key(), "f16|gemm|b=1 m=64 n=32 k=16 ta=0 tb=0");
  EXPECT_EQ(spec.kernels[1].key(), "f16|gemm|b=1 m=64 n=32 k=32 ta=0 tb=0");
  EXPECT_EQ(spec.kernels[3].key(), "f16|gemm|b=1 m=128 n=32 k=16 ta=0 tb=0");
  EXPECT_EQ(spec.kernels[11].key(), "bf16|gemm|b=1 m=128 n=32 k=64 ta=0 tb=0");
  EXPECT_EQ(spec.kernels[13].signature(),
            "n=1 c=3 h=8 w=8 k=4 r=3 s=3 sh=2 sw=2 ph=1 pw=0 dh=1 dw=1 g=1 "
            "pass=fwd");
}

TEST(Sweep, ExampleFileExpands) {
  SweepSpec spec;
  std::string error;
  ASSERT_TRUE(loadSweepSpec(
      std::string(BENCH_SOURCE_DIR) + "/examples/sweep.json", spec, error))
      << error;
  // 16 gemm + 1 batched gemm + 6 + 4 conv + 8 embedding + 2 elementwise +
  // 2 softmax + layernorm + reduce + transpose + concat + 9 memcpy.
  EXPECT_EQ(spec.kernels.size(), 52u);
}

TEST(Sweep, ErrorsNameTheEntry) {
  SweepSpec spec;
  std::string error;
  EXPECT_FALSE(parseSweepSpec(
      R"({"kernels": [{"kind": "reduce", "rows": 1, "cols": 2},
                      {"kind": "conv2d", "n": 1}]})",
      "s.json", spec, error));
  EXPECT_EQ(error, "s.json: kernels[1]: conv2d: missing attribute 'c'");
  EXPECT_FALSE(parseSweepSpec(R"({"kernelz": []})", "s.json", spec, error));
  EXPECT_EQ(error, "s.json: unknown key 'kernelz'");
  EXPECT_FALSE(parseSweepSpec(
      R"({"kernels": [{"kind": "reduce", "rows": {"from": 1, "to": 8}, "cols": 2}]})",
      "s.json", spec, error));
  EXPECT_NE(error.find("one of 'mul', 'step'"), std::string::npos);
  EXPECT_FALSE(parseSweepSpec("{\"kernels\": [", "s.json", spec, error));
  EXPECT_EQ(error.rfind("s.json: line 1", 0), 0u) << error;
}

//===--- Kernel keys and kernel lists -------------------------------------===//

TEST(KernelKey, RoundTripsEveryKind) {
  // A key buildKernel() makes reads back as the same kernel.
  Kernel built;
  std::string error;
  ASSERT_TRUE(buildKernel("conv2d", "f16",
                          {{"n", AttrValue::ofInt(8)},
                           {"c", AttrValue::ofInt(3)},
                           {"h", AttrValue::ofInt(224)},
                           {"w", AttrValue::ofInt(224)},
                           {"k", AttrValue::ofInt(64)},
                           {"r", AttrValue::ofInt(7)},
                           {"s", AttrValue::ofInt(7)},
                           {"stride", AttrValue::ofInt(2)},
                           {"pad", AttrValue::ofInt(3)}},
                          true, built, error))
      << error;
  Kernel k;
  ASSERT_TRUE(parseKernelKey("conv2d", "f16", built.signature(), k, error))
      << error;
  EXPECT_EQ(k.key(), built.key());
  EXPECT_EQ(k.num("sh"), 2);
  ASSERT_TRUE(parseKernelKey("memcpy", "f32", "bytes=4096 dir=h2d", k, error));
  EXPECT_EQ(k.text("dir"), "h2d");
  ASSERT_TRUE(parseKernelKey("transpose", "bf16", "n=100", k, error));
  EXPECT_EQ(k.key(), "bf16|transpose|n=100");
  // The CNN layers and the update, as the ONNX examples' launch lists key
  // them.
  ASSERT_TRUE(parseKernelKey(
      "pooling", "f32",
      "n=32 c=64 h=112 w=112 r=3 s=3 sh=2 sw=2 ph=1 pw=1 pass=bwd", k, error))
      << error;
  EXPECT_EQ(k.num("ph"), 1);
  EXPECT_EQ(k.text("pass"), "bwd");
  ASSERT_TRUE(
      parseKernelKey("batchnorm", "f32", "n=12845056 c=128 pass=fwd", k, error))
      << error;
  EXPECT_EQ(k.num("c"), 128);
  ASSERT_TRUE(parseKernelKey("optimizer", "f32", "n=4194304 op=sgd", k, error))
      << error;
  EXPECT_EQ(k.text("op"), "sgd");
  bool unsupported = false;
  EXPECT_FALSE(parseKernelKey("optimizer", "f32", "n=8 op=lamb", k, error,
                              &unsupported));
  EXPECT_TRUE(unsupported) << error;
  // ONNX's fused element-wise names run as their arithmetic.
  ASSERT_TRUE(parseKernelKey("elementwise", "f32", "n=1024 in=2 op=sub_square",
                             k, error))
      << error;
  EXPECT_FALSE(parseKernelKey("elementwise", "f32", "n=1024 in=2 op=unknown", k,
                              error, &unsupported));
  // A strided kernel's key is valid and not benchmarked; `st` is written
  // only as 1, after `op`.
  EXPECT_FALSE(parseKernelKey("elementwise", "bf16", "n=1024 in=2 op=add st=1",
                              k, error, &unsupported));
  EXPECT_TRUE(unsupported);
  EXPECT_EQ(error, "strided operands (st=1) are not benchmarked");
  EXPECT_FALSE(parseKernelKey("elementwise", "bf16", "n=1024 in=2 op=add st=0",
                              k, error, &unsupported));
  EXPECT_FALSE(unsupported);
  EXPECT_EQ(error, "signature field 'st' is written only as 1");
  EXPECT_FALSE(parseKernelKey("elementwise", "bf16", "n=1024 in=2 st=1 op=add",
                              k, error));
  EXPECT_EQ(error, "signature fields are 'n in st op', elementwise expects 'n "
                   "in op [st]'");
}

TEST(KernelKey, RejectsMalformedKeys) {
  Kernel k;
  std::string error;
  bool unsupported = true;
  auto malformed = [&](const char *kind, const char *dtype, const char *sig) {
    unsupported = true;
    bool ok = parseKernelKey(kind, dtype, sig, k, error, &unsupported);
    return !ok && !unsupported;
  };
  EXPECT_TRUE(malformed("gemm", "f32", "b=1 m=x n=512 k=256 ta=0 tb=0"));
  EXPECT_EQ(error, "signature field 'm' is not an integer");
  EXPECT_TRUE(malformed("gemm", "f32", "b=1 m=064 n=512 k=256 ta=0 tb=0"));
  EXPECT_EQ(error, "signature field 'm' is not an integer");
  EXPECT_TRUE(malformed("gemm", "f32", "b=1 m=0 n=512 k=256 ta=0 tb=0"));
  EXPECT_EQ(error, "signature field 'm' must be positive, got 0");
  EXPECT_TRUE(malformed("gemm", "f32", "b=1 m=1 n=512 k=256 ta=2 tb=0"));
  EXPECT_EQ(error, "signature field 'ta' must be 0 or 1");
  EXPECT_TRUE(malformed("gemm", "f32", "b=1 n=512 m=1 k=256 ta=0 tb=0"));
  EXPECT_EQ(error, "signature fields are 'b n m k ta tb', gemm expects "
                   "'b m n k ta tb'");
  EXPECT_TRUE(malformed("reduce", "f32", "rows=1  cols=2"));
  EXPECT_TRUE(malformed("reduce", "f32", "rows=1 cols=2 "));
  EXPECT_TRUE(malformed("reduce", "f32", ""));
  EXPECT_TRUE(malformed("reduce", "f32", "rows=1 cols="));
  EXPECT_TRUE(malformed("reduce", "f32", "rows=1"));
  EXPECT_TRUE(malformed("conv2d", "f32",
                        "n=1 c=1 h=1 w=1 k=1 r=1 s=1 sh=1 sw=1 ph=-1 pw=0 "
                        "dh=1 dw=1 g=1 pass=fwd"));
  EXPECT_EQ(error, "signature field 'ph' must be non-negative, got -1");
  EXPECT_TRUE(malformed("reduce", "fp16", "rows=1 cols=2"));
  EXPECT_EQ(error, "dtype 'fp16' is not canonical, expected 'f16'");
  EXPECT_TRUE(malformed("reduce", "", "rows=1 cols=2"));
}

TEST(KernelKey, TellsUnsupportedFromMalformed) {
  Kernel k;
  std::string error;
  bool unsupported = false;
  EXPECT_FALSE(parseKernelKey("attention", "f16", "flops=1 bytes=2", k, error,
                              &unsupported));
  EXPECT_TRUE(unsupported);
  EXPECT_EQ(error, "kind 'attention' is not benchmarked");
  unsupported = false;
  EXPECT_FALSE(parseKernelKey("elementwise", "f32", "n=4 in=1 op=unique", k,
                              error, &unsupported));
  EXPECT_TRUE(unsupported);
  EXPECT_EQ(error, "signature field 'op' is 'unique', not an element-wise op "
                   "perf-bench runs (docs/runtime-bench.md)");
  unsupported = false;
  EXPECT_FALSE(parseKernelKey("reduce", "complex64", "rows=1 cols=2", k, error,
                              &unsupported));
  EXPECT_TRUE(unsupported);
  // Booleans and integers are keys perf-bench reads (a mask, an index).
  EXPECT_TRUE(parseKernelKey("elementwise", "i1", "n=4 in=2 op=le", k, error));
  EXPECT_TRUE(
      parseKernelKey("elementwise", "i64", "n=4 in=1 op=cumsum", k, error));
}

std::string kernelList(const std::string &entries) {
  return R"({"schema": "perf.kernel_list/1", "kernels": [)" + entries + "]}";
}

TEST(KernelList, ExampleList) {
  KernelList list;
  std::string error;
  ASSERT_TRUE(loadKernelList(std::string(BENCH_SOURCE_DIR) +
                                 "/examples/mlp-kernels.json",
                             list, error))
      << error;
  EXPECT_EQ(list.kernelOps, 8u);
  ASSERT_EQ(list.kernels.size(), 6u);
  EXPECT_EQ(list.kernels[0].key(), "f32|gemm|b=1 m=64 n=512 k=256 ta=0 tb=0");
  EXPECT_EQ(list.kernels[1].key(), "bf16|gemm|b=1 m=64 n=256 k=512 ta=1 tb=0");
  EXPECT_EQ(list.kernels[2].key(),
            "f16|conv2d|n=8 c=3 h=224 w=224 k=64 r=7 s=7 sh=2 sw=2 ph=3 pw=3 "
            "dh=1 dw=1 g=1 pass=fwd");
  EXPECT_EQ(list.kernels[3].key(),
            "f32|embedding_bag|t=4 rows=100000 d=64 b=64 l=20 pass=bwd");
  EXPECT_EQ(list.kernels[4].key(), "f16|softmax|rows=64 cols=512");
  EXPECT_EQ(list.kernels[5].key(), "f32|elementwise|n=32768 in=1 op=erf");
  ASSERT_EQ(list.unsupported.size(), 1u);
  EXPECT_EQ(list.unsupported["kind 'attention' is not benchmarked"], 1u);
}

TEST(KernelList, DedupsAcrossListsAndSkipsKnown) {
  KernelList a, b;
  std::string error;
  ASSERT_TRUE(parseKernelList(kernelList(R"({"kind": "reduce", "dtype": "f32",
                     "signature": "rows=4 cols=8", "count": 3},
                    {"kind": "reduce", "dtype": "f32",
                     "signature": "rows=4 cols=8"})"),
                              "a.json", a, error))
      << error;
  ASSERT_TRUE(parseKernelList(kernelList(R"({"kind": "reduce", "dtype": "f32",
                     "signature": "rows=4 cols=8", "count": 1,
                     "device": "H100-SXM5-80GB"},
                    {"kind": "transpose", "dtype": "f32",
                     "signature": "n=9", "count": 2})"),
                              "b.json", b, error))
      << error;
  EXPECT_EQ(a.kernels.size(), 1u);
  EXPECT_EQ(a.kernelOps, 4u); // a missing count is one op
  EXPECT_EQ(b.kernelOps, 3u);
  std::vector<Kernel> all;
  EXPECT_EQ(mergeUnique(all, a.kernels, {}), 1u);
  EXPECT_EQ(mergeUnique(all, b.kernels, {"f32|transpose|n=9"}), 0u);
  EXPECT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].key(), "f32|reduce|rows=4 cols=8");
}

TEST(KernelList, MalformedEntryNamesFileAndIndex) {
  KernelList list;
  std::string error;
  const std::string ok = R"({"kind": "reduce", "dtype": "f32",
                             "signature": "rows=4 cols=8", "count": 1},)";
  EXPECT_FALSE(
      parseKernelList(kernelList(ok + ok + ok +
                                 R"({"kind": "gemm", "dtype": "f32", "count": 1,
                     "signature": "b=1 m=sixty n=512 k=256 ta=0 tb=0"})"),
                      "kernels.json", list, error));
  EXPECT_EQ(error,
            "kernels.json: kernels[3]: signature field 'm' is not an integer");
  EXPECT_FALSE(
      parseKernelList(kernelList(R"({"kind": "gemm", "dtype": "f32"})"),
                      "k.json", list, error));
  EXPECT_EQ(error, "k.json: kernels[0]: missing string 'signature'");
  EXPECT_FALSE(
      parseKernelList(kernelList(ok + R"({"kind": "reduce", "dtype": "f32",
                          "signature": "rows=4 cols=8", "count": 0})"),
                      "k.json", list, error));
  EXPECT_EQ(error, "k.json: kernels[1]: 'count' must be a positive integer");
  EXPECT_FALSE(parseKernelList(kernelList("7"), "k.json", list, error));
  EXPECT_EQ(error, "k.json: kernels[0]: expected an object");
  EXPECT_FALSE(
      parseKernelList(R"({"schema": "perf.kernel_list/1", "kernels": [)",
                      "k.json", list, error));
  EXPECT_EQ(error.rfind("k.json: line 1, column ", 0), 0u) << error;
}

TEST(KernelList, RequiresTheSchema) {
  KernelList list;
  std::string error;
  EXPECT_FALSE(parseKernelList(R"({"kernels": []})", "k.json", list, error));
  EXPECT_EQ(error, "k.json: not a kernel list (no \"schema\": "
                   "\"perf.kernel_list/1\")");
  EXPECT_FALSE(
      parseKernelList(R"({"schema": "perf.kernel_list/2", "kernels": []})",
                      "k.json", list, error));
  EXPECT_EQ(error, "k.json: schema is 'perf.kernel_list/2', perf-bench reads "
                   "'perf.kernel_list/1'");
  EXPECT_FALSE(parseKernelList(R"([1])", "k.json", list, error));
  EXPECT_EQ(error, "k.json: expected a JSON object");
  EXPECT_FALSE(parseKernelList(R"({"schema": "perf.kernel_list/1"})", "k.json",
                               list, error));
  EXPECT_EQ(error, "k.json: missing list 'kernels'");
  EXPECT_TRUE(parseKernelList(kernelList(""), "k.json", list, error)) << error;
  EXPECT_TRUE(list.kernels.empty());
}

//===--- Statistics and progress ------------------------------------------===//

TEST(Stats, QuantilesInterpolateLinearly) {
  Summary s = summarize({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  // numpy.percentile([1, 2, 3, 4], 10) = 1.3, 90 -> 3.7
  EXPECT_NEAR(s.p10, 1.3, 1e-12);
  EXPECT_NEAR(s.p90, 3.7, 1e-12);
  EXPECT_NEAR(s.spread(), 2.4, 1e-12);
  std::vector<double> eleven;
  for (int i = 11; i >= 1; --i)
    eleven.push_back(i);
  Summary t = summarize(eleven);
  EXPECT_DOUBLE_EQ(t.median, 6);
  EXPECT_DOUBLE_EQ(t.p10, 2);
  EXPECT_DOUBLE_EQ(t.p90, 10);
  EXPECT_EQ(summarize({}).count, 0u);
  EXPECT_DOUBLE_EQ(summarize({7}).p90, 7);
}

TEST(Stats, ProgressBarText) {
  EXPECT_EQ(ProgressBar::render(5, 10, 12.0, 10, "gemm"),
            "[#####     ]  50% 5/10 eta 12s gemm");
  EXPECT_EQ(ProgressBar::render(0, 4, 0.0, 4, ""), "[    ]   0% 0/4");
  EXPECT_EQ(ProgressBar::render(4, 4, 9.0, 4, ""), "[####] 100% 4/4");
  EXPECT_EQ(ProgressBar::render(1, 3, 2.0, 3, ""), "[#  ]  33% 1/3 eta 4s");
}

//===--- Database ---------------------------------------------------------===//

KernelRow row(const Kernel &k, double latency) {
  KernelRow r;
  r.device = "H100-SXM5-80GB";
  r.dtype = k.dtype;
  r.kind = k.kind;
  r.signature = k.signature();
  r.latencyUs = latency;
  r.spreadUs = 0.5;
  r.reps = 50;
  r.source = "test";
  return r;
}

int64_t countRows(const std::string &path) {
  sqlite3 *db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt *st = nullptr;
  sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM kernels", -1, &st, nullptr);
  int64_t n = -1;
  if (st && sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

TEST(Database, BatchesCommitAndResume) {
  std::string path = tempPath("batch.db");
  removeDb(path);
  std::string error;
  {
    PerfDatabase db;
    ASSERT_TRUE(db.open(path, error)) << error;
    EXPECT_EQ(db.meta("schema_version").value_or(""), "1");
    db.setBatchSize(2);
    ASSERT_TRUE(db.putDevice("H100-SXM5-80GB", std::nullopt, error));
    ASSERT_TRUE(db.add(row(gemm(1, 2, 3), 10), error));
    EXPECT_EQ(countRows(path), 0); // queued, not committed
    ASSERT_TRUE(db.add(row(gemm(4, 5, 6), 20), error));
    EXPECT_EQ(countRows(path), 2); // one batch, committed
    ASSERT_TRUE(db.add(row(gemm(7, 8, 9), 30), error));
    EXPECT_EQ(db.pendingRows(), 1u);
    // Dropped without close: models an interrupted run (the destructor
    // flushes, so release the handle the way a crash would: never flush).
  }
  // The destructor flushed the last row.
  EXPECT_EQ(countRows(path), 3);
  PerfDatabase db;
  ASSERT_TRUE(db.open(path, error)) << error;
  std::set<std::string> have = db.existingKeys("H100-SXM5-80GB");
  EXPECT_EQ(have.size(), 3u);
  EXPECT_TRUE(have.count("f32|gemm|b=1 m=4 n=5 k=6 ta=0 tb=0"));
  EXPECT_TRUE(db.existingKeys("A100-SXM4-40GB").empty());
  std::vector<Kernel> todo;
  mergeUnique(todo, {gemm(1, 2, 3), gemm(2, 2, 2)}, have);
  ASSERT_EQ(todo.size(), 1u);
  EXPECT_EQ(todo[0].num("m"), 2);
  // Re-measuring replaces the row (same primary key).
  ASSERT_TRUE(db.add(row(gemm(1, 2, 3), 11), error));
  ASSERT_TRUE(db.flush(error));
  EXPECT_EQ(countRows(path), 3);
  std::vector<KernelRow> rows = db.rows("");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_DOUBLE_EQ(rows[0].latencyUs, 11);

  sqlite3 *raw = nullptr;
  sqlite3_open(path.c_str(), &raw);
  sqlite3_stmt *st = nullptr;
  sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char *>(sqlite3_column_text(st, 0)),
               "wal");
  sqlite3_finalize(st);
  sqlite3_close(raw);
  ASSERT_TRUE(db.close(error));
  removeDb(path);
}

TEST(Database, ExportsCsv) {
  std::string path = tempPath("csv.db");
  removeDb(path);
  std::string error;
  PerfDatabase db;
  ASSERT_TRUE(db.open(path, error)) << error;
  KernelRow r = row(gemm(64, 512, 256, "f16"), 12.25);
  r.algo = "heuristic 0";
  r.kernelName = "sm90_xmma_gemm;other, \"quoted\"";
  ASSERT_TRUE(db.add(r, error));
  ASSERT_TRUE(db.flush(error));
  std::ostringstream out;
  ASSERT_TRUE(db.exportCsv(out, "", error));
  EXPECT_EQ(out.str(),
            "device,dtype,kind,signature,latency_us,spread_us,reps,algo,"
            "kernel_name,source\n"
            "H100-SXM5-80GB,f16,gemm,b=1 m=64 n=512 k=256 ta=0 tb=0,12.25,0.5,"
            "50,heuristic 0,\"sm90_xmma_gemm;other, \"\"quoted\"\"\",test\n");
  ASSERT_TRUE(db.close(error));
  removeDb(path);
}

TEST(Database, RefusesOtherSchemaVersion) {
  std::string path = tempPath("v2.db");
  removeDb(path);
  std::string error;
  {
    PerfDatabase db;
    ASSERT_TRUE(db.open(path, error));
    ASSERT_TRUE(db.putMeta("schema_version", "2", error));
  }
  PerfDatabase db;
  EXPECT_FALSE(db.open(path, error));
  EXPECT_NE(error.find("schema_version is 2"), std::string::npos) << error;
  removeDb(path);
}

//===--- Device JSON ------------------------------------------------------===//

TEST(DeviceFile, WritesGpuSpecKeys) {
  ProbeResult p;
  p.name = "NVIDIA H100 80GB HBM3";
  p.base = "H100-SXM5-80GB";
  p.sms = 132;
  p.coresPerSM = 128;
  p.clockMHz = 1980;
  p.tcFp16Tflops = 700.5;
  p.memBwGBs = 3000;
  EXPECT_EQ(deviceJson(p), "{\n"
                           "  \"name\": \"NVIDIA H100 80GB HBM3\",\n"
                           "  \"base\": \"H100-SXM5-80GB\",\n"
                           "  \"sms\": 132,\n"
                           "  \"cores_per_sm\": 128,\n"
                           "  \"clock_mhz\": 1980,\n"
                           "  \"tc_fp16_tflops\": 700.5,\n"
                           "  \"mem_bw_gbs\": 3000\n"
                           "}\n");
  p.launchUs = 2.5;
  EXPECT_EQ(hostOverheadJson(p, "probe"),
            "{\n  \"version\": 1,\n  \"source\": \"probe\",\n"
            "  \"runtime\": {\n    \"cudaLaunchKernel\": 2.5\n  }\n}\n");
  EXPECT_EQ(fp32LanesPerSM(9, 0), 128u);
  EXPECT_EQ(fp32LanesPerSM(8, 0), 64u);
  EXPECT_EQ(fp32LanesPerSM(8, 6), 128u);
}

/// Every key the probe may write must be one the device JSON reader accepts
/// (lib/Support/GpuSpec.cpp), or --perf-device-file rejects the file.
// Every key the probe writes is one of perf's device format (the shared
// table lib/Support/GpuSpec.cpp's test checks against GpuSpec's fields).
TEST(DeviceFile, KeysAreThoseOfGpuSpec) {
  ProbeResult p;
  p.name = "probe";
  p.source = "driver";
  p.base = "A100";
  p.sms = 108;
  p.coresPerSM = 64;
  p.clockMHz = p.fp64Tflops = p.fp32Tflops = p.fp16Tflops = p.tcTf32Tflops =
      p.tcFp16Tflops = p.tcBf16Tflops = p.tcFp8Tflops = p.tcInt8Tops =
          p.memBwGBs = p.memGiB = p.l2BwGBs = p.l2MiB = p.smemPerSMKiB =
              p.pcieGBs = p.nvlinkGBs = 1.5;
  nlohmann::ordered_json written = nlohmann::ordered_json::parse(deviceJson(p));
  std::vector<std::string> keys;
  for (auto &item : written.items())
    keys.push_back(item.key());
  EXPECT_EQ(keys, deviceJsonKeys());
  EXPECT_EQ(keys.size(), 21u);
}

} // namespace

std::string launchList(const std::string &launches) {
  return R"({"schema": "perf.launch_list/1", "graphs": [{"name": "g",
    "device": "H200-SXM-141GB", "predicted_us": 150.5, "launches": [)" +
         launches + "]}]}";
}

// The launches perf-opt writes for test/Transforms/launch-list.mlir: two
// streams, a sync and a collective; the same GEMM twice is built once.
TEST(LaunchList, PlansKernelsWaitsAndWhatIsNotReplayed) {
  std::vector<GraphPlan> plans;
  std::string error;
  ASSERT_TRUE(parseLaunchList(launchList(R"(
      {"type": "kernel", "op": 0, "name": "a", "device": 0, "stream": 0,
       "kind": "gemm", "dtype": "f32", "signature": "b=1 m=64 n=64 k=64 ta=0 tb=0",
       "predicted_us": 0.04, "after": []},
      {"type": "kernel", "op": 0, "name": "a", "device": 0, "stream": 0,
       "kind": "elementwise", "dtype": "f32", "signature": "n=64 in=1 op=unique",
       "after": []},
      {"type": "kernel", "op": 1, "name": "b", "device": 0, "stream": 1,
       "kind": "gemm", "dtype": "f32", "signature": "b=1 m=64 n=64 k=64 ta=0 tb=0",
       "after": [0]},
      {"type": "sync", "op": 2, "name": "perf.sync", "device": 0, "stream": -1},
      {"type": "collective", "op": 3, "name": "d", "device": 0, "stream": 2,
       "kind": "all_reduce", "dtype": "f32", "bytes": 1024, "group": [0, 1],
       "after": [2]},
      {"type": "kernel", "op": 4, "name": "e", "device": 1, "stream": 0,
       "kind": "softmax", "dtype": "f16", "signature": "rows=4 cols=8"})"),
                              "l.json", plans, error))
      << error;
  ASSERT_EQ(plans.size(), 1u);
  const GraphPlan &p = plans[0];
  EXPECT_EQ(p.name, "g");
  EXPECT_EQ(p.target, "H200-SXM-141GB");
  EXPECT_DOUBLE_EQ(p.predictedUs, 150.5);
  ASSERT_EQ(p.launches.size(), 6u);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].key(), "f32|gemm|b=1 m=64 n=64 k=64 ta=0 tb=0");
  EXPECT_EQ(p.launches[0].kernel, 0);
  EXPECT_EQ(p.launches[1].kernel, -1); // unique is not benchmarked
  EXPECT_EQ(p.launches[2].kernel, 0);
  EXPECT_EQ(p.launches[2].after, std::vector<size_t>{0});
  EXPECT_EQ(p.launches[3].type, PlannedLaunch::Type::Sync);
  EXPECT_EQ(p.launches[3].stream, -1);
  EXPECT_EQ(p.launches[4].type, PlannedLaunch::Type::Collective);
  EXPECT_EQ(p.waitedFor,
            (std::vector<bool>{true, false, true, false, false, false}));
  ASSERT_EQ(p.notReplayed.size(), 3u);
  EXPECT_EQ(p.notReplayed.at("collective (one GPU runs no NCCL)"), 1u);
  EXPECT_EQ(p.notReplayed.at("device 1 (one GPU replays device 0)"), 1u);
  // Keys sort: collective, device 1, then the elementwise kernel's reason.
  EXPECT_EQ(std::prev(p.notReplayed.end())->first.rfind("elementwise: ", 0),
            0u);
}

TEST(LaunchList, MalformedLaunchNamesGraphAndIndex) {
  std::vector<GraphPlan> plans;
  std::string error;
  const std::string ok = R"({"type": "kernel", "op": 0, "name": "a",
      "device": 0, "stream": 0, "kind": "reduce", "dtype": "f32",
      "signature": "rows=4 cols=8"},)";
  EXPECT_FALSE(parseLaunchList(launchList(ok + R"({"type": "kernel", "op": 1,
      "name": "b", "device": 0, "stream": 1, "kind": "reduce", "dtype": "f32",
      "signature": "rows=4 cols=8", "after": [1]})"),
                               "l.json", plans, error));
  EXPECT_EQ(error, "l.json: graphs[0].launches[1]: 'after' must list earlier "
                   "launches (0 to 1 exclusive)");
  EXPECT_FALSE(parseLaunchList(launchList(ok + R"({"type": "wait"})"), "l.json",
                               plans, error));
  EXPECT_EQ(error, "l.json: graphs[0].launches[1]: 'type' must be \"kernel\", "
                   "\"collective\" or \"sync\"");
  EXPECT_FALSE(parseLaunchList(launchList(R"({"type": "kernel", "device": 0,
      "stream": -1, "kind": "reduce", "dtype": "f32",
      "signature": "rows=4 cols=8"})"),
                               "l.json", plans, error));
  EXPECT_EQ(error.rfind("l.json: graphs[0].launches[0]: needs integer", 0), 0u);
  EXPECT_FALSE(
      parseLaunchList(R"({"schema": "perf.kernel_list/1", "kernels": []})",
                      "k.json", plans, error));
  EXPECT_EQ(error.rfind("k.json: not a launch list", 0), 0u);
}

TEST(LaunchList, RunReportGivesMedianAndError) {
  std::vector<GraphPlan> plans(2);
  plans[0].name = "ran";
  plans[0].predictedUs = 110;
  plans[0].launches.resize(3);
  plans[1].name = "failed";
  std::vector<GraphRun> runs(2);
  runs[0].ok = true;
  runs[0].samplesUs = {90, 100, 120};
  runs[0].kernelsRun = 2;
  runs[0].notRun["collective (one GPU runs no NCCL)"] = 1;
  runs[0].issueUs = {30, 50, 40};
  runs[0].launchHostUs["gemm"] = {12, 10, 11, 13, 9, 14};
  runs[1].error = "out of memory";
  nlohmann::json report = nlohmann::json::parse(
      graphRunJson(plans, runs, "NVIDIA H200", "perf-bench 0.2"));
  EXPECT_EQ(report["schema"], "perf.graph_run/1");
  EXPECT_EQ(report["device"], "NVIDIA H200");
  const nlohmann::json &ran = report["graphs"][0];
  EXPECT_DOUBLE_EQ(ran["measured_us"].get<double>(), 100.0);
  // 110 predicted against the median 100 measured: +10%.
  EXPECT_NEAR(ran["error"].get<double>(), 0.10, 1e-12);
  EXPECT_EQ(ran["launches"], 3);
  EXPECT_EQ(ran["kernels_run"], 2);
  EXPECT_EQ(ran["not_run"]["collective (one GPU runs no NCCL)"], 1);
  // The host: the median issue time, and per kind the launches of one
  // repetition (6 over 3) with the median and mean of their host times.
  EXPECT_DOUBLE_EQ(ran["host"]["issue_us"].get<double>(), 40.0);
  const nlohmann::json &gemm = ran["host"]["launch_us"]["gemm"];
  EXPECT_EQ(gemm["launches"], 2);
  EXPECT_DOUBLE_EQ(gemm["median"].get<double>(), 11.5);
  EXPECT_DOUBLE_EQ(gemm["mean"].get<double>(), 11.5);
  EXPECT_EQ(report["graphs"][1]["error_text"], "out of memory");
  EXPECT_FALSE(report["graphs"][1].contains("measured_us"));
}
