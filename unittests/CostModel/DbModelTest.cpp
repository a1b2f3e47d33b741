#include "perf/CostModel/DbModel.h"
#include "perf/Support/KernelSignature.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <sqlite3.h>
#include <unistd.h>

using namespace perf;

namespace {
std::string tempDb() {
  llvm::SmallString<128> path;
  llvm::sys::fs::createTemporaryFile("perf-db-test", "sqlite", path);
  llvm::sys::fs::remove(path);
  return path.str().str();
}

KernelDesc gemm(int64_t m) {
  KernelDesc k;
  k.kind = KernelKind::Gemm;
  k.m = m;
  k.n = 256;
  k.k = 128;
  return k;
}
} // namespace

TEST(PerfDb, ExactHitAndRecordedMisses) {
  std::string path = tempDb();
  {
    auto db = PerfDatabase::openForWriting(path);
    ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
    ASSERT_FALSE(bool((*db)->addDevice("Tesla T4", "")));
    PerfDbEntry e{"Tesla T4", "f32", "gemm", kernelSignature(gemm(512)), 42.5};
    ASSERT_FALSE(bool((*db)->addKernel(e)));
  }
  CostModelOptions options;
  options.databasePath = path;
  auto stack = createKernelCostStack("db,roofline", options);
  ASSERT_TRUE(bool(stack)) << llvm::toString(stack.takeError());
  GpuSpec t4 = *lookupGpu("T4");
  t4.name = "Tesla T4";
  KernelCost hit = stack->estimate(gemm(512), t4);
  EXPECT_EQ(hit.model, "db");
  EXPECT_EQ(hit.latencyUs, 42.5);
  // Another shape falls through to the roofline and is listed once.
  KernelCost miss = stack->estimate(gemm(1024), t4);
  EXPECT_EQ(miss.model, "roofline");
  stack->estimate(gemm(1024), t4);
  auto misses = stack->misses();
  ASSERT_EQ(misses.size(), 1u);
  EXPECT_EQ(misses[0].device, "Tesla T4");
  EXPECT_EQ(misses[0].kind, "gemm");
  EXPECT_EQ(misses[0].signature, "b=1 m=1024 n=256 k=128 ta=0 tb=0");
  // Another device misses even for a measured shape.
  GpuSpec v100 = *lookupGpu("V100");
  EXPECT_EQ(stack->estimate(gemm(512), v100).model, "roofline");
  llvm::sys::fs::remove(path);
}

TEST(PerfDb, MissingFileAndPathAreErrors) {
  CostModelOptions options;
  auto none = createKernelCostModel("db", options);
  ASSERT_FALSE(bool(none));
  EXPECT_NE(llvm::toString(none.takeError()).find("database path"),
            std::string::npos);
  options.databasePath = "/nonexistent/perf.sqlite";
  auto missing = createKernelCostModel("db", options);
  EXPECT_FALSE(bool(missing));
  llvm::consumeError(missing.takeError());
}

/// A database of `rows` GEMMs on the T4 at `path`.
static void writeGemms(const std::string &path, int rows) {
  auto db = PerfDatabase::openForWriting(path);
  ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
  ASSERT_FALSE(bool((*db)->begin()));
  for (int m = 1; m <= rows; ++m)
    ASSERT_FALSE(bool((*db)->addKernel(
        {"Tesla T4", "f32", "gemm", kernelSignature(gemm(m)), 1.0 + m})));
  ASSERT_FALSE(bool((*db)->commit()));
}

static std::string openError(const std::string &path) {
  auto db = PerfDatabase::openReadOnly(path);
  return db ? "" : llvm::toString(db.takeError());
}

TEST(PerfDb, TruncatedFileIsAnErrorNotAnEmptyDatabase) {
  std::string path = tempDb();
  writeGemms(path, 2000);
  ASSERT_EQ(openError(path), "");
  uint64_t size = 0;
  ASSERT_FALSE(llvm::sys::fs::file_size(path, size));
  ASSERT_EQ(::truncate(path.c_str(), off_t(size / 2)), 0);
  EXPECT_EQ(openError(path), path + ": not a perf database (docs/perf-db.md): "
                                    "database disk image is malformed");
  llvm::sys::fs::remove(path);
}

TEST(PerfDb, BadLatenciesAreRefusedWithTheirKernel) {
  std::string path = tempDb();
  writeGemms(path, 1);
  auto writer = PerfDatabase::openForWriting(path);
  ASSERT_TRUE(bool(writer));
  PerfDbEntry negative{"Tesla T4", "f32", "gemm", kernelSignature(gemm(7)), -5};
  EXPECT_EQ(llvm::toString((*writer)->addKernel(negative)),
            path + ": kernel 'gemm " + kernelSignature(gemm(7)) +
                "': latency_us must be a finite positive number");
  writer->reset();
  // A row another writer stored is caught when the database is opened.
  sqlite3 *raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE kernels SET latency_us = -5", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  EXPECT_EQ(openError(path), path + ": kernel 'gemm " +
                                 kernelSignature(gemm(1)) +
                                 "' (f32 on Tesla T4): latency_us must be a "
                                 "finite positive number, got -5.0");
  llvm::sys::fs::remove(path);
}

TEST(CostStack, FirstModelThatPricesWins) {
  CostModelOptions options;
  auto stack = createKernelCostStack("heuristic, tile, roofline", options);
  ASSERT_TRUE(bool(stack));
  EXPECT_EQ(stack->modelNames(),
            (std::vector<std::string>{"heuristic", "tile", "roofline"}));
  GpuSpec v100 = *lookupGpu("V100");
  EXPECT_EQ(stack->estimate(gemm(512), v100).model, "tile");
  KernelDesc add;
  add.kind = KernelKind::Elementwise;
  add.numElements = 1 << 20;
  add.numInputs = 2;
  EXPECT_EQ(stack->estimate(add, v100).model, "heuristic");
  KernelDesc generic;
  generic.flops = 1e9;
  EXPECT_EQ(stack->estimate(generic, v100).model, "roofline");
  auto bad = createKernelCostStack("tile,magic", options);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError())
                .find("unknown kernel cost model "
                      "'magic'"),
            std::string::npos);
}
