//===- OverheadTableFuzzer.cpp - Host overhead tables (T1-T5 JSON) --------===//

#include "FuzzSupport.h"
#include "perf/Support/HostOverheadTable.h"
#include "perf/Support/InputFile.h"
#include <cmath>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto json = perf::parseJsonInput(perf::fuzz::text(data, size), "fuzz.json");
  if (!json) {
    perf::fuzz::ignore(json.takeError());
    return 0;
  }
  auto table = perf::HostOverheadTable::parse(*json);
  if (!table) {
    perf::fuzz::ignore(table.takeError());
    return 0;
  }
  // What it accepted are durations.
  for (auto type : {perf::Overhead::T1, perf::Overhead::T2, perf::Overhead::T3,
                    perf::Overhead::T4, perf::Overhead::T5})
    if (!perf::isFiniteAtLeast(table->get("aten::mm", type), 0))
      std::abort();
  if (!perf::isFiniteAtLeast(table->runtimeCall("cudaLaunchKernel"), 0))
    std::abort();
  for (const auto &region : table->regions)
    if (!perf::isFiniteAtLeast(table->entryT1(region.getKey(), "aten::mm"), 0))
      std::abort();
  if (!perf::isFiniteAtLeast(table->iterationTailUs(), 0))
    std::abort();
  // What it accepted, written, reads back.
  auto again = perf::HostOverheadTable::parse(table->toJson());
  if (!again)
    std::abort();
  return 0;
}
