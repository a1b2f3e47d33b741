//===- TupleKeyInfoTest.cpp - Cheap hashing of tuples of handles ----------===//
//
// Keys alike hash alike, the map finds what was put in it, and the hash
// spreads handles laid out as an allocator lays them out (16 bytes apart, a
// few distinct values in most fields) over a table's buckets as well as
// llvm::DenseMapInfo's does.
//
//===----------------------------------------------------------------------===//

#include "perf/Support/TupleKeyInfo.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "gtest/gtest.h"
#include <cstdint>
#include <tuple>

namespace {

using Key = std::tuple<const void *, const void *, int64_t>;

const void *handle(uintptr_t i) {
  return reinterpret_cast<const void *>(0x7f0000000000ull + 16 * i);
}

/// How many of 2^16 buckets `hash` fills with these 65,536 keys: the work
/// lists of a step (thousands) crossed with its few devices and names.
template <typename Info> unsigned bucketsFilled() {
  llvm::DenseSet<unsigned> buckets;
  for (uintptr_t list = 0; list < 4096; ++list)
    for (uintptr_t name = 0; name < 8; ++name)
      for (int64_t device = 0; device < 2; ++device)
        buckets.insert(Info::getHashValue(
                           Key{handle(list), handle(1000000 + name), device}) &
                       0xffff);
  return buckets.size();
}

TEST(TupleKeyInfo, EqualKeysHashAlikeAndTheMapFindsThem) {
  using Info = perf::TupleKeyInfo<Key>;
  EXPECT_EQ(Info::getHashValue(Key{handle(1), handle(2), 3}),
            Info::getHashValue(Key{handle(1), handle(2), 3}));
  EXPECT_NE(Info::getHashValue(Key{handle(1), handle(2), 3}),
            Info::getHashValue(Key{handle(2), handle(1), 3}));
  llvm::DenseMap<Key, int, Info> map;
  for (int i = 0; i < 10000; ++i)
    map[Key{handle(i), handle(i % 7), i % 3}] = i;
  ASSERT_EQ(map.size(), 10000u);
  for (int i = 0; i < 10000; ++i)
    EXPECT_EQ(map.lookup(Key{handle(i), handle(i % 7), i % 3}), i);
}

TEST(TupleKeyInfo, SpreadsKeysAsWellAsLlvms) {
  unsigned cheap = bucketsFilled<perf::TupleKeyInfo<Key>>();
  unsigned llvms = bucketsFilled<llvm::DenseMapInfo<Key>>();
  // Random hashes fill 1 - 1/e of the buckets: 41,427.
  EXPECT_GT(cheap, 40000u);
  EXPECT_GT(cheap, llvms * 95 / 100);
}

} // namespace
