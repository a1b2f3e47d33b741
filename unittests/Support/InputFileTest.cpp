#include "perf/Support/InputFile.h"
#include "perf/Support/InputError.h"
#include "perf/Support/Limits.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cmath>
#include <limits>

using namespace perf;

TEST(InputFile, JsonSyntaxErrorsNameFileLineAndColumn) {
  auto json = parseJsonInput("{\n  \"a\": 1,\n  \"b\" 2\n}", "x.json");
  ASSERT_FALSE(bool(json));
  EXPECT_EQ(llvm::toString(json.takeError()),
            "x.json:3:7: invalid JSON: Expected : after object key");
}

TEST(InputFile, DeepNestingIsRefusedBeforeParsing) {
  // 100000 levels overflowed the stack of the recursive parser.
  std::string deep = "\n" + std::string(100000, '[');
  auto json = parseJsonInput(deep, "deep.json");
  ASSERT_FALSE(bool(json));
  EXPECT_EQ(llvm::toString(json.takeError()),
            "deep.json:2:257: JSON nested deeper than the limit "
            "max-json-depth (256)");
  // Brackets inside strings do not count; the limit itself parses.
  std::string atLimit =
      std::string(256, '[') + "\"[[[{\"" + std::string(256, ']');
  EXPECT_TRUE(bool(parseJsonInput(atLimit, "ok.json")));
}

TEST(InputFile, MissingFileNamesThePath) {
  auto buffer = readInputFile("/nonexistent/in.json");
  ASSERT_FALSE(bool(buffer));
  EXPECT_EQ(llvm::toString(buffer.takeError()),
            "cannot read: No such file or directory (/nonexistent/in.json)");
}

TEST(InputFile, CorruptGzipIsAnError) {
  llvm::SmallString<128> path;
  int fd;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("perf-gz", "gz", fd, path));
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << "\x1f\x8b\x08\x00garbage";
  }
  auto text = readMaybeGzipFile(path);
  ASSERT_FALSE(bool(text));
  EXPECT_NE(llvm::toString(text.takeError()).find("gzip data"),
            std::string::npos);
  llvm::sys::fs::remove(path);
}

TEST(InputFile, FiniteAtLeast) {
  EXPECT_TRUE(isFiniteAtLeast(0, 0));
  EXPECT_FALSE(isFiniteAtLeast(-5, 0));
  EXPECT_FALSE(isFiniteAtLeast(std::nan(""), 0));
  EXPECT_FALSE(isFiniteAtLeast(std::numeric_limits<double>::infinity(), 0));
}

TEST(Limits, TensorShapes) {
  EXPECT_EQ(checkTensorShape({1024, 1024}), std::nullopt);
  EXPECT_EQ(checkTensorShape({-1, 1024}), std::nullopt);
  EXPECT_EQ(*checkTensorShape({4, int64_t(1) << 41}),
            "dimension 1 is 2199023255552, above the limit max-extent "
            "(1099511627776)");
  // Each dimension within max-extent, the product past an int64.
  EXPECT_EQ(*checkTensorShape({int64_t(1) << 40, int64_t(1) << 40}),
            "the tensor has more elements than the limit max-tensor-elements "
            "(281474976710656)");
}

TEST(InputError, PrintsInTheOneFormat) {
  EXPECT_EQ(llvm::toString(fileError("a.json", 3, 7, "bad")),
            "a.json:3:7: bad");
  EXPECT_EQ(llvm::toString(fileError("a.json", "bad")), "bad (a.json)");
}
