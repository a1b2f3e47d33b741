#include "perf/CostModel/DbModel.h"
#include "perf/CostModel/KernelMeasurements.h"
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

// The rows of a database as measurements (perf-eval and perf-train read it
// so): GEMMs and convolutions in TF32/FP16/BF16 on tensor cores, the op
// "<kind>.<dtype>", the line the rowid, CUPTI rows timed as device busy
// time, the device's spec from the database or the catalog.
TEST(PerfDb, RowsAsMeasurements) {
  std::string path = tempDb();
  {
    auto db = PerfDatabase::openForWriting(path);
    ASSERT_TRUE(bool(db)) << llvm::toString(db.takeError());
    ASSERT_FALSE(bool((*db)->addDevice("H100-SXM5-80GB", "")));
    PerfDbEntry bf16{"H100-SXM5-80GB", "bf16", "gemm",
                     kernelSignature(gemm(512)), 20};
    bf16.source = "perf-bench 0.1 cuda 13.0 cupti";
    PerfDbEntry f32 = bf16;
    f32.dtype = "f32";
    f32.latencyUs = 60;
    PerfDbEntry norm{"H100-SXM5-80GB", "f16", "layernorm",
                     "rows=1024 cols=4096", 9};
    norm.source = "perf-bench 0.1 cuda 13.0 events";
    for (const PerfDbEntry &e : {bf16, f32, norm})
      ASSERT_FALSE(bool((*db)->addKernel(e)));
  }
  auto read = readPerfDatabase(path);
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  ASSERT_EQ(read->rows.size(), 3u);
  ASSERT_EQ(read->devices.count("H100-SXM5-80GB"), 1u);
  EXPECT_EQ(read->devices["H100-SXM5-80GB"].memBandwidth,
            lookupGpu("H100")->memBandwidth);
  // Ordered by device, kind, signature, dtype.
  const KernelMeasurement &b = read->rows[0], &f = read->rows[1],
                          &n = read->rows[2];
  EXPECT_EQ(b.op, "gemm.bf16");
  EXPECT_EQ(b.kernel.dtype, DType::BF16);
  EXPECT_TRUE(b.kernel.tensorCores);
  EXPECT_FALSE(b.timedAlone);
  EXPECT_EQ(b.kernel.m, 512);
  EXPECT_EQ(f.op, "gemm.f32");
  EXPECT_FALSE(f.kernel.tensorCores);
  EXPECT_EQ(f.latencyUs, 60);
  EXPECT_EQ(n.op, "layernorm.f16");
  EXPECT_FALSE(n.kernel.tensorCores);
  EXPECT_TRUE(n.timedAlone);
  EXPECT_EQ(n.kernel.rows, 1024);
  // Lines are the rowids, in insertion order here.
  EXPECT_EQ(b.line, 1u);
  EXPECT_EQ(f.line, 2u);
  EXPECT_EQ(n.line, 3u);
  EXPECT_TRUE(runsOnTensorCores(KernelKind::Conv2d, DType::TF32));
  EXPECT_FALSE(runsOnTensorCores(KernelKind::Elementwise, DType::BF16));
  // A device left out needs no spec; one neither stored nor in the catalog
  // is an error naming the file.
  {
    auto db = PerfDatabase::openForWriting(path);
    ASSERT_TRUE(bool(db));
    PerfDbEntry lab{"Lab GPU X9", "f32", "layernorm", "rows=8 cols=8", 3};
    ASSERT_FALSE(bool((*db)->addKernel(lab)));
  }
  auto skipped = readPerfDatabase(
      path, [](llvm::StringRef device) { return device == "Lab GPU X9"; });
  ASSERT_TRUE(bool(skipped)) << llvm::toString(skipped.takeError());
  EXPECT_EQ(skipped->rows.size(), 3u);
  auto unknown = readPerfDatabase(path);
  ASSERT_FALSE(bool(unknown));
  EXPECT_NE(llvm::toString(unknown.takeError())
                .find("device 'Lab GPU X9' has no spec in the database"),
            std::string::npos);
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
