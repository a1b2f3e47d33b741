#include "perf/Support/JsonOutline.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "gtest/gtest.h"
#include <string>

using namespace perf;

namespace {
std::string messageOf(llvm::Error error) {
  return llvm::toString(std::move(error));
}
} // namespace

// Cuts at element-level commas once a slice reaches the size asked for:
// brackets and commas inside strings, escaped quotes and nested values do
// not count.
TEST(JsonOutline, CutsTheKeyedArrayAtElementCommas) {
  //                      0         1         2         3         4
  //                      0123456789012345678901234567890123456789012345
  std::string text =
      R"({"a": [1, 2], "traceEvents": [{"x": ",]"}, [3, 4], "q\"[", 5], "z": 1})";
  llvm::Expected<JsonOutline> outline =
      outlineJson(text, "t.json", "traceEvents", 1);
  ASSERT_TRUE(bool(outline)) << messageOf(outline.takeError());
  ASSERT_EQ(outline->arrays.size(), 1u);
  const JsonOutline::Array &array = outline->arrays[0];
  EXPECT_EQ(text.substr(array.begin, array.end - array.begin),
            R"([{"x": ",]"}, [3, 4], "q\"[", 5])");
  // Every element its own slice: three cuts, at the top-level commas.
  std::vector<size_t> expected;
  for (size_t at : {text.find("}, ["), text.find("], \"q"), text.find("\", 5")})
    expected.push_back(at + 1);
  EXPECT_EQ(array.cuts, expected);
  std::vector<std::pair<size_t, size_t>> slices = JsonOutline::slices(array);
  ASSERT_EQ(slices.size(), 4u);
  EXPECT_EQ(text.substr(slices[3].first, slices[3].second - slices[3].first),
            ", 5");
  EXPECT_EQ(outline->skeleton, R"({"a": [1, 2], "traceEvents": [], "z": 1})");
  // "z" is at skeleton offset 35 and text offset 35 + (array size - 2).
  size_t z = outline->skeleton.find("\"z\"");
  EXPECT_EQ(outline->textOffsetOfSkeleton(z), text.find("\"z\""));
  EXPECT_EQ(outline->textOffsetOfSkeleton(3), 3u);
}

TEST(JsonOutline, LargeSlicesCutOnlyPastTheSize) {
  std::string text = "[1,2,3,4,5,6,7,8]";
  llvm::Expected<JsonOutline> outline =
      outlineJson(text, "t", "traceEvents", 4);
  ASSERT_TRUE(bool(outline));
  ASSERT_EQ(outline->arrays.size(), 1u);
  // Cuts at the commas 4 or more bytes after the last: offsets 4, 8, 12.
  EXPECT_EQ(outline->arrays[0].cuts, (std::vector<size_t>{4, 8, 12}));
  EXPECT_EQ(outline->skeleton, "[]");
}

TEST(JsonOutline, OtherKeysAndNestedKeysAreLeftWhole) {
  std::string text = R"({"x": {"traceEvents": [1, 2]}, "traceEvents": 7})";
  llvm::Expected<JsonOutline> outline =
      outlineJson(text, "t", "traceEvents", 1);
  ASSERT_TRUE(bool(outline));
  EXPECT_TRUE(outline->arrays.empty());
  EXPECT_EQ(outline->skeleton, text);
}

TEST(JsonOutline, MalformedStructureIsLocated) {
  EXPECT_EQ(
      messageOf(
          outlineJson("{\"a\": [1,\n \"open]}", "t.json", "a", 1).takeError()),
      "t.json:2:2: invalid JSON: unterminated string");
  EXPECT_EQ(messageOf(outlineJson("[1]]", "t.json", "a", 1).takeError()),
            "t.json:1:4: invalid JSON: unbalanced ']'");
  EXPECT_EQ(messageOf(outlineJson("{\"a\": [1}", "t.json", "a", 1).takeError()),
            "t.json:1:9: invalid JSON: '}' closes an array");
  EXPECT_EQ(
      messageOf(outlineJson("{\"a\": [1,\n[2", "t.json", "a", 1).takeError()),
      "t.json:2:3: invalid JSON: the text ends inside 3 unclosed "
      "brackets");
  std::string deep(100000, '[');
  std::string message =
      messageOf(outlineJson(deep, "d.json", "a", 1).takeError());
  EXPECT_NE(message.find("d.json:1:"), std::string::npos) << message;
  EXPECT_NE(message.find("max-json-depth"), std::string::npos) << message;
}

// An error in a part made from the text is reported where it is in the text.
TEST(JsonOutline, ErrorsInAPartMapToTheText) {
  std::string whole = "{\"traceEvents\": [1,\n 2,\n 3 x]}";
  std::string part = "[ 3 x]";
  size_t begin = whole.find(",\n 3");
  llvm::Error error = jsonErrorInPart(
      part, [&](size_t k) { return begin + k; }, whole, "w.json", "fallback");
  std::string message = messageOf(std::move(error));
  EXPECT_EQ(message.rfind("w.json:3:4: invalid JSON: ", 0), 0u) << message;
}
