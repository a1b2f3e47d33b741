#include "perf/Support/DType.h"
#include "perf/Support/DTypeNames.h"
#include "gtest/gtest.h"

using namespace perf;

// Every spelling of the shared table (which perf-bench reads too) parses to
// the DType whose canonical name the table gives.
TEST(DType, EverySpellingParsesToItsCanonicalType) {
  for (const DTypeSpelling &entry : kDTypeSpellings) {
    llvm::StringRef spelling(entry.spelling.data(), entry.spelling.size());
    std::optional<DType> type = parseDType(spelling);
    ASSERT_TRUE(type.has_value()) << spelling.str();
    EXPECT_EQ(dtypeName(*type),
              llvm::StringRef(entry.canonical.data(), entry.canonical.size()))
        << spelling.str();
  }
}

TEST(DType, CaseSpacesAndFrameworkPrefixesAreIgnored) {
  EXPECT_EQ(parseDType(" FP16 "), DType::F16);
  EXPECT_EQ(parseDType("c10::Half"), DType::F16);
  EXPECT_EQ(parseDType("torch.bfloat16"), DType::BF16);
  EXPECT_EQ(parseDType("c10::BFloat16"), DType::BF16);
  EXPECT_EQ(canonicalDTypeName("Float8_E4M3FN"), "f8");
  EXPECT_FALSE(parseDType("complex64").has_value());
  EXPECT_EQ(canonicalDTypeName("complex64"), "");
  EXPECT_EQ(canonicalDTypeName(""), "");
}
