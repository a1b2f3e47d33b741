//===- HugePages.h - Large arrays backed by huge pages ----------*- C++ -*-===//
//
// A million-kernel step fills a few hundred MB of arrays indexed by op and
// kernel. Touched a 4 KB page at a time, their page faults were 40% of the
// estimate; backed by 2 MB pages (Linux's transparent huge pages, which the
// default "madvise" mode grants to ranges that ask) they are a few hundred.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_HUGEPAGES_H
#define PERF_SUPPORT_HUGEPAGES_H

#include <cstddef>

namespace perf {

/// Asks for huge pages under the whole 2 MB pages of [data, data + bytes).
/// A hint: where the system has none, or for small ranges, nothing changes.
void adviseHugePages(const void *data, size_t bytes);

/// Makes the process keep memory it frees for its next allocations rather
/// than give it back to the system. Each pass of an estimate fills arrays of
/// a few hundred MB and frees them; given back (glibc maps blocks that large
/// on their own and unmaps them on free) the next pass's arrays are fresh
/// pages the kernel zeroes again. For tools, not libraries: it sets the
/// process's allocator.
void keepFreedMemoryForReuse();

/// Reserves room for `count` elements in `array` (a std::vector or
/// llvm::SmallVector) and advises huge pages for it.
template <typename Array> void reserveHuge(Array &array, size_t count) {
  array.reserve(count);
  adviseHugePages(array.data(), array.capacity() * sizeof(*array.data()));
}

} // namespace perf

#endif // PERF_SUPPORT_HUGEPAGES_H
