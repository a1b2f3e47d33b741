//===- TupleKeyInfo.h - Cheap hashing of tuples of handles ------*- C++ -*-===//
//
// The analyses of a step look an op up by a few uniqued handles (its name,
// work list, attribute dictionary, device, result type), once per op of
// steps of millions. llvm::DenseMapInfo<std::tuple> mixes each element's
// hash into the last with a full 64-bit avalanche, about twenty
// instructions an element, more than the lookup itself; handles are
// pointers already spread over the address space, so one multiply per
// element and one fold at the end spread them as well.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_TUPLEKEYINFO_H
#define PERF_SUPPORT_TUPLEKEYINFO_H

#include "llvm/ADT/DenseMapInfo.h"
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace perf {

/// DenseMapInfo for a std::tuple of values that DenseMapInfo hashes (MLIR
/// handles, integers), with a cheaper hash: the same empty and tombstone
/// keys and equality as llvm::DenseMapInfo<std::tuple<...>>.
template <typename Tuple> struct TupleKeyInfo : llvm::DenseMapInfo<Tuple> {
  static unsigned getHashValue(const Tuple &key) {
    uint64_t hash = 0;
    std::apply(
        [&](const auto &...element) {
          ((hash =
                (hash ^
                 uint64_t(llvm::DenseMapInfo<std::decay_t<decltype(element)>>::
                              getHashValue(element))) *
                0x9E3779B97F4A7C15ull),
           ...);
        },
        key);
    return unsigned(hash >> 32) ^ unsigned(hash);
  }
};

} // namespace perf

#endif // PERF_SUPPORT_TUPLEKEYINFO_H
