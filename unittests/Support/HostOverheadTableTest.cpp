// The one host-overhead table: lookups, reading, writing.

#include "perf/Support/HostOverheadTable.h"
#include "gtest/gtest.h"

using namespace perf;

TEST(HostOverheadTable, DefaultsAreThePaperValues) {
  HostOverheadTable t;
  EXPECT_DOUBLE_EQ(t.get("aten::addmm", Overhead::T1), 8);
  EXPECT_DOUBLE_EQ(t.get("aten::addmm", Overhead::T2), 10);
  EXPECT_DOUBLE_EQ(t.get("aten::addmm", Overhead::T3), 5);
  EXPECT_DOUBLE_EQ(t.get("aten::addmm", Overhead::T5), 5);
  EXPECT_DOUBLE_EQ(t.runtimeCall("cudaLaunchKernel"), 10);
  EXPECT_DOUBLE_EQ(t.syncCall("cudaFree"), 0);
}

TEST(HostOverheadTable, LookupOrderIsOpThenDefaultThenBuiltIn) {
  auto json = llvm::json::parse(R"({"version": 1,
    "default": {"t2": 7},
    "runtime": {"cudaLaunchKernel": {"mean": 4.5, "std": 1, "count": 3}},
    "ops": {"aten::addmm": {"t2": {"mean": 12.5}, "t5": 2}}})");
  ASSERT_TRUE(bool(json));
  auto t = HostOverheadTable::parse(*json);
  ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
  EXPECT_DOUBLE_EQ(t->get("aten::addmm", Overhead::T2), 12.5);
  EXPECT_DOUBLE_EQ(t->get("aten::relu", Overhead::T2), 7);
  EXPECT_DOUBLE_EQ(t->get("aten::addmm", Overhead::T3), 5);
  EXPECT_DOUBLE_EQ(t->runtimeCall("cudaLaunchKernel"), 4.5);
  EXPECT_DOUBLE_EQ(t->runtimeCall("cudaMemcpyAsync"), 10);
}

TEST(HostOverheadTable, RejectsBadValues) {
  auto json = llvm::json::parse(R"({"ops": {"aten::mm": {"t1": "fast"}}})");
  auto t = HostOverheadTable::parse(*json);
  ASSERT_FALSE(bool(t));
  EXPECT_NE(llvm::toString(t.takeError()).find("ops.aten::mm.t1"),
            std::string::npos);
  auto v2 = llvm::json::parse(R"({"version": 2})");
  auto t2 = HostOverheadTable::parse(*v2);
  ASSERT_FALSE(bool(t2));
  llvm::consumeError(t2.takeError());
}

TEST(HostOverheadTable, JsonRoundTripKeepsTheStatistics) {
  auto json = llvm::json::parse(R"json({
    "version": 1, "source": "trace.json", "launch_queue_depth": 1022,
    "default": {"t2": 11.0, "t4": {"mean": 6.0, "std": 1.0, "count": 9}},
    "runtime": {"cudaMemcpyAsync": 9.5, "cudaFree": 120},
    "ops": {"aten::addmm": {"t2": {"mean": 12.3, "std": 1.2, "count": 300}}}
  })json");
  ASSERT_TRUE(bool(json));
  auto table = HostOverheadTable::parse(*json);
  ASSERT_TRUE(bool(table)) << llvm::toString(table.takeError());
  EXPECT_DOUBLE_EQ(table->get("aten::addmm", Overhead::T2), 12.3);
  EXPECT_DOUBLE_EQ(table->get("aten::relu", Overhead::T2), 11.0);
  EXPECT_DOUBLE_EQ(table->runtimeCall("cudaLaunchKernel"), 6.0);
  EXPECT_DOUBLE_EQ(table->syncCall("cudaFree"), 120);

  auto again = HostOverheadTable::parse(table->toJson());
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  EXPECT_EQ(again->source, "trace.json");
  EXPECT_DOUBLE_EQ(again->get("aten::addmm", Overhead::T2), 12.3);
  EXPECT_EQ(again->ops["aten::addmm"][1]->count, 300u);
  EXPECT_DOUBLE_EQ(again->ops["aten::addmm"][1]->std, 1.2);
  EXPECT_DOUBLE_EQ(again->runtimeCall("cudaLaunchKernel"), 6.0);
  EXPECT_EQ(again->defaults[3]->count, 9u);
  EXPECT_EQ(again->launchQueueDepth, 1022u);
  // No queue seen: no key written.
  HostOverheadTable unlimited;
  EXPECT_EQ(unlimited.toJson().getAsObject()->get("launch_queue_depth"),
            nullptr);
}

TEST(HostOverheadTable, NegativeOrNonFiniteFiguresAreErrors) {
  for (const char *text :
       {R"({"default": {"t1": -1}})",
        R"({"runtime": {"cudaFree": {"mean": 1, "std": -2}}})",
        R"({"ops": {"aten::mm": {"t3": {"mean": 1, "count": -4}}}})",
        R"({"ops": []})", R"({"launch_queue_depth": -1})",
        R"({"launch_queue_depth": 2.5})"}) {
    auto json = llvm::json::parse(text);
    ASSERT_TRUE(bool(json)) << text;
    auto t = HostOverheadTable::parse(*json);
    EXPECT_FALSE(bool(t)) << text;
    if (!t)
      llvm::consumeError(t.takeError());
  }
}

TEST(HostOverheadTable, AnOpEnteringARegionTakesTheRegionsT1) {
  auto json = llvm::json::parse(R"json({
    "default": {"t1": 9},
    "ops": {"aten::empty": {"t1": 12}},
    "regions": {"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__":
                  {"t1": {"mean": 301.5, "std": 263.1, "count": 19}}}
  })json");
  ASSERT_TRUE(bool(json));
  auto table = HostOverheadTable::parse(*json);
  ASSERT_TRUE(bool(table)) << llvm::toString(table.takeError());
  const char *fetch =
      "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";
  EXPECT_DOUBLE_EQ(table->entryT1(fetch, "aten::empty"), 301.5);
  // A region the table has not seen: the op's own T1, else the default.
  EXPECT_DOUBLE_EQ(table->entryT1("Optimizer.step#SGD.step", "aten::empty"),
                   12);
  EXPECT_DOUBLE_EQ(table->entryT1("Optimizer.step#SGD.step", "aten::to"), 9);
  auto again = HostOverheadTable::parse(table->toJson());
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  EXPECT_EQ(again->regions[fetch].count, 19u);
  EXPECT_DOUBLE_EQ(again->regions[fetch].std, 263.1);
  // No region seen: no key written.
  EXPECT_EQ(HostOverheadTable().toJson().getAsObject()->get("regions"),
            nullptr);
}

/// `text` is refused with an error that names `key`.
static void expectRefusedNaming(const char *text, llvm::StringRef key) {
  auto json = llvm::json::parse(text);
  ASSERT_TRUE(bool(json)) << text;
  auto t = HostOverheadTable::parse(*json);
  ASSERT_FALSE(bool(t)) << text;
  std::string message = llvm::toString(t.takeError());
  EXPECT_NE(message.find(key.str()), std::string::npos) << message;
}

TEST(HostOverheadTable, ARegionWithoutAT1IsAnErrorNamingIt) {
  for (const char *text :
       {R"({"regions": {"fetch": 4}})", R"({"regions": {"fetch": {"t2": 4}}})",
        R"({"regions": {"fetch": {"t1": -4}}})", R"({"regions": []})"})
    expectRefusedNaming(text, "regions");
}

TEST(HostOverheadTable, TheIterationTailRoundTrips) {
  auto json = llvm::json::parse(
      R"({"iteration_tail": {"mean": 437.5, "std": 12.5, "count": 4}})");
  ASSERT_TRUE(bool(json));
  auto table = HostOverheadTable::parse(*json);
  ASSERT_TRUE(bool(table)) << llvm::toString(table.takeError());
  EXPECT_DOUBLE_EQ(table->iterationTailUs(), 437.5);
  auto again = HostOverheadTable::parse(table->toJson());
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  ASSERT_TRUE(again->iterationTail.has_value());
  EXPECT_EQ(again->iterationTail->count, 4u);
  EXPECT_DOUBLE_EQ(again->iterationTail->std, 12.5);
  // No tail: none written, and a table without one adds nothing.
  EXPECT_EQ(HostOverheadTable().toJson().getAsObject()->get("iteration_tail"),
            nullptr);
  EXPECT_DOUBLE_EQ(HostOverheadTable().iterationTailUs(), 0);
  for (const char *text :
       {R"({"iteration_tail": -1})", R"({"iteration_tail": "long"})"})
    expectRefusedNaming(text, "iteration_tail");
}

TEST(HostOverheadTable, TheLayerTimeRoundTrips) {
  auto json = llvm::json::parse(R"({"layer_us": 545.25})");
  ASSERT_TRUE(bool(json));
  auto table = HostOverheadTable::parse(*json);
  ASSERT_TRUE(bool(table)) << llvm::toString(table.takeError());
  EXPECT_DOUBLE_EQ(table->layerUs, 545.25);
  auto again = HostOverheadTable::parse(table->toJson());
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  EXPECT_DOUBLE_EQ(again->layerUs, 545.25);
  // None: none written, and none added.
  EXPECT_EQ(HostOverheadTable().toJson().getAsObject()->get("layer_us"),
            nullptr);
  for (const char *text : {R"({"layer_us": -1})", R"({"layer_us": "slow"})"})
    expectRefusedNaming(text, "layer_us");
}

TEST(HostOverheadTable, ACatalogNameResolvesToItsFile) {
  // The shipped catalog's H200 host: F.linear measured at 27.689 us a call,
  // the probe's launch 5.9025 us, so T1 = 21.7865 rounded to 21.786.
  auto table = HostOverheadTable::resolve("h200-vm");
  ASSERT_TRUE(bool(table)) << llvm::toString(table.takeError());
  EXPECT_NEAR(table->get("aten::addmm", Overhead::T1) +
                  table->runtimeCall("cudaLaunchKernel"),
              27.689, 1e-3);
  EXPECT_GT(table->layerUs, 0);
  auto missing = HostOverheadTable::resolve("no-such-host");
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("h200-vm"),
            std::string::npos);
}

TEST(HostOverheadTable, TheExtractionRoundTripsAndIsChecked) {
  auto json = llvm::json::parse(
      R"({"extraction": {"profiler_cpu_us": 2, "profiler_runtime_us": 4,
                         "outliers_removed": true}})");
  ASSERT_TRUE(bool(json));
  auto table = HostOverheadTable::parse(*json);
  ASSERT_TRUE(bool(table)) << llvm::toString(table.takeError());
  ASSERT_TRUE(table->extraction.has_value());
  EXPECT_FALSE(table->extraction->forProfiledReplay());
  auto again = HostOverheadTable::parse(table->toJson());
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  EXPECT_DOUBLE_EQ(again->extraction->profilerRuntimeUs, 4);
  EXPECT_TRUE(again->extraction->outliersRemoved);
  for (const char *text :
       {R"({"extraction": {"profiler_cpu_us": -1, "profiler_runtime_us": 0,
                           "outliers_removed": false}})",
        R"({"extraction": {"profiler_cpu_us": 0}})", R"({"extraction": 3})"})
    expectRefusedNaming(text, "extraction");
}
