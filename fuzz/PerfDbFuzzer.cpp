//===- PerfDbFuzzer.cpp - SQLite perf databases ---------------------------===//
//
// The input is a database file. What opens as a perf database is listed and
// looked up through the db model; every latency it returns must be finite
// and positive.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "perf/CostModel/DbModel.h"
#include "perf/Support/GpuSpec.h"
#include "perf/Support/InputFile.h"
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path =
      perf::fuzz::writeScratchFile("perf.db", perf::fuzz::text(data, size));
  auto db = perf::PerfDatabase::openReadOnly(path);
  if (!db) {
    perf::fuzz::ignore(db.takeError());
    return 0;
  }
  auto entries = (*db)->entries();
  if (!entries)
    perf::fuzz::ignore(entries.takeError());
  perf::DbModel model(std::move(*db));
  perf::KernelDesc gemm;
  gemm.kind = perf::KernelKind::Gemm;
  gemm.m = gemm.n = gemm.k = 64;
  std::optional<perf::KernelCost> cost =
      model.estimate(gemm, *perf::lookupGpu("T4"));
  if (cost && !(perf::isFiniteAtLeast(cost->latencyUs, 0) &&
                cost->latencyUs > 0))
    std::abort();
  return 0;
}
