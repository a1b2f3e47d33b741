#include "perf/Analysis/HostOverheadTable.h"
#include "gtest/gtest.h"

using namespace perf;

TEST(HostOverheadTable, DefaultsAreThePaperValues) {
  HostOverheadTable t;
  EXPECT_DOUBLE_EQ(t.get("aten::addmm", Overhead::T1), 8);
  EXPECT_DOUBLE_EQ(t.runtimeCall("cudaLaunchKernel"), 10);
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
