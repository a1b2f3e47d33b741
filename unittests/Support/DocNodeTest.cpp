//===- DocNodeTest.cpp - UBJSON read in place ------------------------------===//

#include "perf/Support/DocNode.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {
/// UBJSON of {"a": [$l#3 1 -2 70000], "b": [$d#2 0.5 -1.25], "c": "xy",
/// "a": 7} (a key repeated, as XGBoost reads it: the last wins).
std::string sample() {
  std::string s = "{";
  auto key = [&](const char *k) {
    s += 'U';
    s += char(strlen(k));
    s += k;
  };
  key("a");
  s += "[$l#U";
  s += char(3);
  for (int32_t v : {1, -2, 70000})
    for (int shift = 24; shift >= 0; shift -= 8)
      s += char((uint32_t(v) >> shift) & 0xff);
  key("b");
  s += "[$d#U";
  s += char(2);
  // 0.5f = 0x3f000000, -1.25f = 0xbfa00000, big-endian.
  s += std::string("\x3f\x00\x00\x00\xbf\xa0\x00\x00", 8);
  key("c");
  s += "SU";
  s += char(2);
  s += "xy";
  key("a");
  s += "U";
  s += char(7);
  s += "}";
  return s;
}
} // namespace

TEST(DocNode, PackedArraysAreReadElementByElement) {
  std::string bytes = sample();
  llvm::Expected<DocNode> doc = parseUbjsonInput(bytes, "sample.ubj");
  ASSERT_TRUE(bool(doc)) << llvm::toString(doc.takeError());
  ASSERT_TRUE(doc->isObject());
  EXPECT_EQ(doc->size(), 4u);
  // The repeated key gives its last value.
  EXPECT_EQ(doc->getInteger("a"), 7);
  const DocNode *a = doc->fields()[0].second.isArray()
                         ? &doc->fields()[0].second
                         : nullptr;
  ASSERT_TRUE(a);
  ASSERT_EQ(a->size(), 3u);
  EXPECT_EQ(a->integerAt(0), 1);
  EXPECT_EQ(a->integerAt(1), -2);
  EXPECT_EQ(a->integerAt(2), 70000);
  EXPECT_EQ(a->numberAt(2), 70000.0);
  EXPECT_EQ(a->integerAt(3), std::nullopt);
  // A packed array has numbers, not nodes.
  EXPECT_EQ(a->at(0), nullptr);
  const DocNode *b = doc->getArray("b");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->numberAt(0), 0.5);
  EXPECT_EQ(b->numberAt(1), -1.25);
  // -1.25 is no integer; 0.5 neither.
  EXPECT_EQ(b->integerAt(1), std::nullopt);
  EXPECT_EQ(doc->getString("c"), llvm::StringRef("xy"));
  EXPECT_EQ(doc->getObject("c"), nullptr);
  EXPECT_EQ(doc->get("missing"), nullptr);
}

TEST(DocNode, WholeArraysReadAsTheirElements) {
  std::string bytes = sample();
  llvm::Expected<DocNode> doc = parseUbjsonInput(bytes, "sample.ubj");
  ASSERT_TRUE(bool(doc)) << llvm::toString(doc.takeError());
  const DocNode &a = doc->fields()[0].second;
  std::vector<int64_t> ints = {5};
  ASSERT_TRUE(a.appendIntegers(ints));
  EXPECT_EQ(ints, (std::vector<int64_t>{5, 1, -2, 70000}));
  std::vector<double> numbers;
  ASSERT_TRUE(a.appendNumbers(numbers));
  EXPECT_EQ(numbers, (std::vector<double>{1, -2, 70000}));
  const DocNode *b = doc->getArray("b");
  ASSERT_TRUE(b);
  numbers.clear();
  ASSERT_TRUE(b->appendNumbers(numbers));
  EXPECT_EQ(numbers, (std::vector<double>{0.5, -1.25}));
  // 0.5 is no integer.
  ints.clear();
  EXPECT_FALSE(b->appendIntegers(ints));
  // Not an array.
  EXPECT_FALSE(doc->appendNumbers(numbers));

  llvm::json::Value json = llvm::json::Array{1, 2.0, 2.5};
  DocNode view = DocNode::fromJson(json);
  numbers.clear();
  ASSERT_TRUE(view.appendNumbers(numbers));
  EXPECT_EQ(numbers, (std::vector<double>{1, 2, 2.5}));
  ints.clear();
  EXPECT_FALSE(view.appendIntegers(ints));
  llvm::json::Value whole = llvm::json::Array{3, 4.0};
  ints.clear();
  ASSERT_TRUE(DocNode::fromJson(whole).appendIntegers(ints));
  EXPECT_EQ(ints, (std::vector<int64_t>{3, 4}));
}

TEST(DocNode, PackedCountPastTheBytesIsAnErrorAtItsOffset) {
  // [$l#U 3: 12 bytes promised, 4 present.
  std::string bytes =
      std::string("[$l#U") + char(3) + std::string("\x00\x00\x00\x01", 4);
  llvm::Expected<DocNode> doc = parseUbjsonInput(bytes, "short.ubj");
  ASSERT_FALSE(bool(doc));
  EXPECT_EQ(llvm::toString(doc.takeError()),
            "UBJSON at byte 6: 3 elements of 4 bytes need more than the 4 "
            "bytes left (short.ubj)");
}

TEST(DocNode, ViewsOfJsonValuesAnswerAlike) {
  llvm::json::Value json = llvm::json::Object{
      {"n", 3.0}, {"i", 4}, {"s", "t"}, {"arr", llvm::json::Array{1, 2.5}}};
  DocNode doc = DocNode::fromJson(json);
  EXPECT_EQ(doc.getInteger("n"), 3);
  EXPECT_EQ(doc.getInteger("i"), 4);
  EXPECT_EQ(doc.getString("s"), llvm::StringRef("t"));
  const DocNode *arr = doc.getArray("arr");
  ASSERT_TRUE(arr);
  EXPECT_EQ(arr->integerAt(0), 1);
  EXPECT_EQ(arr->numberAt(1), 2.5);
  EXPECT_EQ(arr->integerAt(1), std::nullopt);
  ASSERT_TRUE(arr->at(1));
  EXPECT_EQ(arr->at(1)->kind(), DocNode::Kind::Number);
}
