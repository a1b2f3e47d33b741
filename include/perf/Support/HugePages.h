//===- HugePages.h - Large arrays and heaps on huge pages -------*- C++ -*-===//
//
// A million-kernel step fills a few hundred MB of arrays indexed by op and
// kernel. Touched a 4 KB page at a time, their page faults were 40% of the
// estimate; backed by 2 MB pages (Linux's transparent huge pages, which the
// default "madvise" mode grants to ranges that ask) they are a few hundred.
// The IR itself, a few hundred MB of ops on the heap, is walked pointer by
// pointer: the tools put the whole heap on huge pages too.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_HUGEPAGES_H
#define PERF_SUPPORT_HUGEPAGES_H

#include <cstddef>

namespace perf {

/// Asks for huge pages under the whole 2 MB pages of [data, data + bytes).
/// A hint: where the system has none, or for small ranges, nothing changes.
void adviseHugePages(const void *data, size_t bytes);

/// Sets the process's heap for graphs of millions of ops. For tools, not
/// libraries: it sets the process's allocator.
/// - Memory freed is kept for the next allocations rather than given back to
///   the system. Each pass of an estimate fills arrays of a few hundred MB and
///   frees them; given back (glibc maps blocks that large on their own and
///   unmaps them on free) the next pass's arrays are fresh pages the kernel
///   zeroes again.
/// - The heap grows in steps of up to 1 GiB (an eighth of the machine's
///   memory at most), each step advised for huge pages (adviseHeapGrowth). A
///   million-kernel IR is a few hundred MB of ops, attributes and use lists
///   that every walk follows pointer by pointer; on 4 KB pages nearly every
///   pointer is a TLB miss, which under a virtual machine's nested paging is
///   a walk of two page tables. The first step starts on a 2 MB boundary;
///   malloc writes in its first huge page before the advice, which leaves
///   that page on 4 KB pages, so a block never freed takes it and the
///   heap's blocks start at the second (a small estimate's few MB would
///   otherwise fault in 4 KB at a time); what was left of the heap's top
///   below that boundary is taken and never touched, so that small blocks
///   do not fault it in first.
/// - Every thread allocates from this one heap: another thread's arena would
///   be memory of its own on 4 KB pages.
/// Returns whether the heap grows in advised steps: not where the allocator
/// is not glibc's (a sanitizer's) or the system not Linux.
bool tuneHeapForLargeGraphs();

/// Grows the heap by `bytes` now, advised for huge pages, ahead of a phase
/// that allocates that much without calls to adviseHeapGrowth on the way (a
/// parse). Virtual memory until touched; half the machine's memory at most.
/// Nothing unless tuneHeapForLargeGraphs ran.
void reserveHeap(size_t bytes);

/// Starts a thread that backs the heap's pages a little ahead of its
/// allocations (16 MB past the heap's free top), so that the kernel zeroes
/// fresh pages on another core instead of at the first write of the thread
/// that allocated them. On a virtual machine that backs the guest's memory
/// on first touch, that zeroing is a tenth to half of a million-kernel
/// estimate's wall time, and varies from run to run. The heap's memory in
/// use grows by at most the window. Nothing unless tuneHeapForLargeGraphs
/// ran, or where the kernel cannot populate a range (Linux before 5.14);
/// the thread stops at exit, or by itself once the allocator's bookkeeping
/// gets slow to read (long free lists: the heap then reuses its own pages).
void backHeapAhead();

/// Advises huge pages for the part of the heap grown since the last call.
/// Nothing unless tuneHeapForLargeGraphs ran. Cheap (no system call unless
/// the heap grew): call it where a phase that allocates much starts or runs.
void adviseHeapGrowth();

/// Reserves room for `count` elements in `array` (a std::vector or
/// llvm::SmallVector) and advises huge pages for it.
template <typename Array> void reserveHuge(Array &array, size_t count) {
  array.reserve(count);
  adviseHugePages(array.data(), array.capacity() * sizeof(*array.data()));
}

} // namespace perf

#endif // PERF_SUPPORT_HUGEPAGES_H
