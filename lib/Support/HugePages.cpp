//===- HugePages.cpp - Large arrays and heaps on huge pages ---------------===//

#include "perf/Support/HugePages.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <thread>

#ifdef __linux__
#include <sys/mman.h>
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifdef __GLIBC__
#include <malloc.h>
#include <unistd.h>
#endif

namespace {
constexpr uintptr_t kHugePage = uintptr_t(2) << 20;

uintptr_t hugePageBelow(uintptr_t address) {
  return address & ~(kHugePage - 1);
}
uintptr_t hugePageAbove(uintptr_t address) {
  return hugePageBelow(address + kHugePage - 1);
}

/// How far the heap's huge-page advice has reached; zero until
/// tuneHeapForLargeGraphs sets the heap up.
std::atomic<uintptr_t> heapAdvisedEnd{0};

/// Keeps a block allocated only to grow the heap from being optimized away.
void *volatile heapGrowthBlock;

/// What was left of the heap's top when it was tuned (never freed).
void *volatile heapTopRemainder;

/// The rest of the heap's first huge page, on 4 KB pages (never freed).
void *volatile heapFirstPageFiller;

/// Allocates what is left of glibc's heap top but a minimal top, so that
/// the next blocks come from the heap's next growth.
void takeHeapTop() {
#ifdef __GLIBC__
#if __GLIBC_PREREQ(2, 33)
  // The top's size (mallinfo2's keepcost), less room for the block's header
  // and a top of malloc's minimal size: a request past the top would grow
  // the heap instead.
  constexpr size_t kSlack = 128;
  // Once: after tuning, the top is the advised heap's.
  if (heapAdvisedEnd.load(std::memory_order_relaxed))
    return;
  size_t top = mallinfo2().keepcost;
  if (top > 4 * kSlack)
    heapTopRemainder = malloc(top - kSlack);
#endif
#endif
}

/// The machine's memory in bytes, or 0 where unknown.
uintptr_t physicalMemory() {
#ifdef __linux__
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0)
    return uintptr_t(pages) * uintptr_t(pageSize);
#endif
  return 0;
}

/// Grows glibc's heap by at least `bytes` (and its step) now: the block is
/// carved from the heap's top, freed at once, and the top is not trimmed.
void growHeap(size_t bytes) {
  heapGrowthBlock = malloc(bytes);
  free(heapGrowthBlock);
}
} // namespace

#if defined(__GLIBC__) && defined(__linux__)
namespace {
/// The thread of backHeapAhead, stopped and joined at exit.
class HeapBacker {
public:
  ~HeapBacker() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_one();
    if (thread.joinable())
      thread.join();
  }

  void start() {
    std::lock_guard<std::mutex> lock(mutex);
    // The pages below the top now are in use already.
    uintptr_t top, end;
    if (!thread.joinable() && readHeapTop(top, end))
      thread = std::thread([this, top] { run(hugePageAbove(top)); });
  }

private:
  /// How far ahead of the heap's free top pages are backed.
  static constexpr uintptr_t kWindow = 8 * kHugePage;
  /// Reads of the allocator's bookkeeping slower than this, so many times
  /// in a row, end the thread: each holds the heap's lock while it counts
  /// the free lists. (One slow read can be the first call's page faults.)
  static constexpr uint64_t kSlowReadMicroseconds = 200;
  static constexpr unsigned kSlowReadsToStop = 8;

  static uint64_t threadCpuMicroseconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return uint64_t(now.tv_sec) * 1000000 + uint64_t(now.tv_nsec) / 1000;
  }

  /// The heap's free top and end, read together: none of the heap between
  /// them is in use yet. False where the allocator cannot say.
  static bool readHeapTop(uintptr_t &top, uintptr_t &end) {
#if __GLIBC_PREREQ(2, 33)
    for (;;) {
      uintptr_t endBefore = reinterpret_cast<uintptr_t>(sbrk(0));
      // The free top's size; the heap grows under the lock mallinfo2
      // takes, so an end unchanged around it is the end of that top.
      size_t free = mallinfo2().keepcost;
      end = reinterpret_cast<uintptr_t>(sbrk(0));
      if (end == endBefore) {
        top = end - free;
        return true;
      }
    }
#else
    (void)top;
    (void)end;
    return false;
#endif
  }

  /// Backs the heap's pages from `backed` on.
  void run(uintptr_t backed) {
    uintptr_t top, end;
    unsigned slowReads = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        if (stopping)
          return;
      }
      // The thread's CPU time: a preemption is no sign of long lists.
      uint64_t before = threadCpuMicroseconds();
      if (!readHeapTop(top, end))
        return;
      slowReads = threadCpuMicroseconds() - before > kSlowReadMicroseconds
                      ? slowReads + 1
                      : 0;
      if (slowReads == kSlowReadsToStop)
        return;
      uintptr_t target = std::min(hugePageBelow(end), top + kWindow);
      if (backed < target) {
        // A huge page at a time, so that a stop is answered soon. Pages
        // the allocating thread touched first cost a walk of the page
        // table.
        if (madvise(reinterpret_cast<void *>(backed), kHugePage,
                    MADV_POPULATE_WRITE) != 0 &&
            errno == EINVAL)
          return;
        backed += kHugePage;
        continue;
      }
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait_for(lock, std::chrono::milliseconds(1),
                    [this] { return stopping; });
    }
  }

  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::thread thread;
};
} // namespace
#endif

void perf::adviseHugePages(const void *data, size_t bytes) {
#ifdef __linux__
  uintptr_t first = reinterpret_cast<uintptr_t>(data);
  uintptr_t begin = hugePageAbove(first);
  uintptr_t end = hugePageBelow(first + bytes);
  if (end > begin)
    (void)madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

bool perf::tuneHeapForLargeGraphs() {
#ifdef __GLIBC__
  // Every block from the heap, none mapped on its own, and the heap's top
  // never trimmed (-1: no threshold at all).
  (void)mallopt(M_MMAP_MAX, 0);
  (void)mallopt(M_TRIM_THRESHOLD, -1);
  // One heap for every thread: another thread's arena is memory of its own
  // on 4 KB pages (the boosters read on the thread pool faulted 5,000 pages
  // of a 2k-kernel estimate in), while the heap's freed pages wait unused.
  (void)mallopt(M_ARENA_MAX, 1);
#ifdef __linux__
  // The step is virtual memory: a page is backed when first touched, so a
  // small graph costs no more. An eighth of the machine's memory at most, so
  // that the system's overcommit check never refuses a step.
  uintptr_t step = hugePageBelow(
      std::min<uintptr_t>(uintptr_t(1) << 30, physicalMemory() / 8));
  // A sanitizer's allocator refuses the option.
  if (step < 16 * kHugePage || mallopt(M_TOP_PAD, int(step)) != 1)
    return false;
  // The heap continues from the next 2 MB boundary: what lies below it can
  // only be backed by 4 KB pages, a fault each (hundreds of faults, most of
  // a small estimate's time). malloc takes the break moved under it as
  // another program's sbrk and would serve small blocks from what was left
  // of its top first, faulting it in page by page (30 faults of a 10k-kernel
  // estimate): that remainder is taken now, and never touched.
  takeHeapTop();
  uintptr_t before = reinterpret_cast<uintptr_t>(sbrk(0));
  uintptr_t aligned = hugePageAbove(before);
  if (aligned != before &&
      sbrk(intptr_t(aligned - before)) != reinterpret_cast<void *>(-1))
    before = aligned;
  // Grows the heap by its first step now, so that it is advised before the
  // input is read into it. The block is smaller than a huge page: malloc
  // writes the header of the top that follows it, and a header written in
  // the second huge page before the advice would leave that page on 4 KB
  // pages, a fault each (350 faults of a 10k-kernel estimate).
  growHeap(kHugePage / 2);
  heapAdvisedEnd = before;
  adviseHeapGrowth();
  // malloc wrote its headers in the heap's first huge page before the
  // advice, so that page stays on 4 KB pages, a fault each: a block that is
  // never freed takes the rest of it, and the heap's blocks start at the
  // second. (Made huge instead by MADV_COLLAPSE, it cost 0.4 ms of every
  // start on this machine: a 2 MB page copied and zeroed.) The freed block
  // left the top at `before`; a block of a huge page less a chunk header
  // (16 bytes) and its size field (8) ends where the next chunk's header
  // sits just below the boundary.
  heapFirstPageFiller = malloc(kHugePage - 24);
  return true;
#endif
#endif
  return false;
}

void perf::reserveHeap(size_t bytes) {
#if defined(__GLIBC__) && defined(__linux__)
  if (!heapAdvisedEnd.load(std::memory_order_relaxed))
    return;
  growHeap(std::min<uintptr_t>(bytes, physicalMemory() / 2));
  adviseHeapGrowth();
#else
  (void)bytes;
#endif
}

void perf::backHeapAhead() {
#if defined(__GLIBC__) && defined(__linux__)
  if (!heapAdvisedEnd.load(std::memory_order_relaxed))
    return;
  static HeapBacker backer;
  backer.start();
#endif
}

void perf::adviseHeapGrowth() {
#if defined(__GLIBC__) && defined(__linux__)
  uintptr_t advised = heapAdvisedEnd.load(std::memory_order_relaxed);
  if (!advised)
    return;
  uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0));
  if (end < advised + kHugePage)
    return;
  // From the last whole huge page advised: a step's advice stops at the
  // last 2 MB boundary below the heap's end, and the heap grows on from
  // there.
  heapAdvisedEnd = hugePageBelow(end);
  adviseHugePages(reinterpret_cast<void *>(advised), end - advised);
#endif
}
