#include "perf/Support/HugePages.h"
#include "gtest/gtest.h"
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace perf;

// A sanitizer's allocator is not glibc's: the heap cannot be tuned.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PERF_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) ||     \
    __has_feature(thread_sanitizer)
#define PERF_OWN_ALLOCATOR 1
#endif
#endif

namespace {
/// The system's transparent huge page mode ("always", "madvise" or "never"),
/// or "" where it has none.
std::string transparentHugePageMode() {
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(file, line);
  size_t open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos)
    return "";
  return line.substr(open + 1, close - open - 1);
}

/// Whether the kernel would back `address` with huge pages
/// (/proc/self/smaps's THPeligible of the mapping holding it): -1 where no
/// mapping holds it.
int hugePageEligible(const void *address) {
  uintptr_t at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin, end;
    char dash;
    std::istringstream header(line);
    if (line.find(':') == std::string::npos ||
        line.find(':') > line.find(' ')) {
      // A mapping's first line: "begin-end perms ...".
      if (header >> std::hex >> begin >> dash >> end && dash == '-')
        inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0)
      return std::atoi(line.c_str() + 12);
  }
  return -1;
}

/// Whether the kernel grants this process huge pages where it asks for them
/// (a container or a prctl can forbid them, and an old kernel does not say).
bool hugePagesGranted() {
  size_t bytes = size_t(8) << 20;
  void *region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED)
    return false;
  adviseHugePages(region, bytes);
  bool granted = hugePageEligible(static_cast<char *>(region) + bytes / 2) == 1;
  munmap(region, bytes);
  return granted;
}

/// Allocates `bytes` from the heap and reports its last byte's eligibility
/// before and after adviseHeapGrowth (a block starts where the heap's free
/// top did, in memory already advised, and ends where the heap grew).
std::pair<int, int> eligibilityAroundAdvice(size_t bytes) {
  char *block = static_cast<char *>(std::malloc(bytes));
  const char *last = block + bytes - 1;
  int before = hugePageEligible(last);
  adviseHeapGrowth();
  int after = hugePageEligible(last);
  std::free(block);
  return {before, after};
}

/// Why the tuned heap cannot be observed in this process, or "" where it
/// can: glibc's allocator, and huge pages granted where asked for.
std::string whyTheTunedHeapCannotBeSeen() {
#if defined(PERF_OWN_ALLOCATOR) || !defined(__GLIBC__)
  return "the allocator is not glibc's";
#else
  std::string mode = transparentHugePageMode();
  if ((mode != "madvise" && mode != "always") || !hugePagesGranted())
    return "no transparent huge pages for this process";
  return "";
#endif
}

constexpr uintptr_t kHugePage = uintptr_t(2) << 20;

/// The start of the huge page that holds the heap's first step: where a
/// block of 1 MB, taken from the tuned heap's top, lies.
uintptr_t firstHeapHugePage(const void *oneMegabyteBlock) {
  return reinterpret_cast<uintptr_t>(oneMegabyteBlock) & ~(kHugePage - 1);
}

/// How many of the 4 KB pages of [begin, end) are resident (mincore), or -1
/// where the kernel cannot say.
long residentPagesIn(uintptr_t begin, uintptr_t end) {
  std::vector<unsigned char> resident((end - begin) / 4096);
  if (mincore(reinterpret_cast<void *>(begin), end - begin, resident.data()))
    return -1;
  long count = 0;
  for (unsigned char page : resident)
    count += page & 1;
  return count;
}

/// How many 4 KB pages of the 2 MB from `begin` are resident, or -1.
int residentPages(uintptr_t begin) {
  return int(residentPagesIn(begin, begin + kHugePage));
}

/// Whether madvise(MADV_POPULATE_WRITE) backs a range (Linux 5.14 on).
bool kernelPopulatesRanges() {
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;
#endif
  size_t bytes = 4096;
  void *page = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED)
    return false;
  bool populated = madvise(page, bytes, MADV_POPULATE_WRITE) == 0;
  munmap(page, bytes);
  return populated;
}

/// Runs `check` in a child process (a death test forks) whose heap is tuned
/// (the tuning sets the process's allocator) and expects it to return 0.
void expectInTunedProcess(int (*check)()) {
  std::string why = whyTheTunedHeapCannotBeSeen();
  if (!why.empty())
    GTEST_SKIP() << why;
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        if (!tuneHeapForLargeGraphs())
          std::exit(2);
        std::exit(check());
      },
      testing::ExitedWithCode(0), "");
}
} // namespace

TEST(HugePagesDeathTest, TheHeapGrowsInAdvisedSteps) {
  expectInTunedProcess([] {
    // A block in the heap's first step is advised already.
    auto first = eligibilityAroundAdvice(64 << 20);
    if (first.first != 1 || first.second != 1)
      return 3;
    // reserveHeap grows the heap ahead and advises it: a block of that size
    // then lies in advised memory before any adviseHeapGrowth.
    size_t reserved = size_t(3) << 29;
    reserveHeap(reserved);
    auto ahead = eligibilityAroundAdvice(reserved);
    if (ahead.first != 1)
      return 4;
    // A block beyond what the heap holds lies in a new part of it, which the
    // kernel does not advise ("madvise" mode) until adviseHeapGrowth. Freed
    // blocks stay in the heap: the part is still there, advised, for the
    // next.
    auto beyond = eligibilityAroundAdvice(2 * reserved);
    if (beyond.second != 1)
      return 5;
    if (transparentHugePageMode() == "madvise" && beyond.first != 0)
      return 6;
    if (eligibilityAroundAdvice(2 * reserved).first != 1)
      return 7;
    return 0;
  });
}

// The heap's first step starts on a 2 MB boundary, so the first block carved
// from it is advised from its first byte (below the boundary only 4 KB pages
// could back it, a fault each), and another thread's blocks come from the
// same heap instead of an arena of their own.
TEST(HugePagesDeathTest, BlocksOfAnyThreadLieInTheAdvisedHeap) {
  expectInTunedProcess([] {
    // Larger than what was left of the heap before the boundary, so it comes
    // from the first step: it starts the step's second huge page, the first
    // holding what malloc wrote before the advice (on 4 KB pages, a fault
    // each) and the block that takes the rest of it.
    size_t bytes = size_t(1) << 20;
    char *block = static_cast<char *>(std::malloc(bytes));
    if (reinterpret_cast<uintptr_t>(block) % kHugePage > 64)
      return 3;
    if (hugePageEligible(block) != 1)
      return 4;
    char *threadBlock = nullptr;
    std::thread([&] {
      threadBlock = static_cast<char *>(std::malloc(bytes));
    }).join();
    uintptr_t heapEnd = reinterpret_cast<uintptr_t>(sbrk(0));
    uintptr_t at = reinterpret_cast<uintptr_t>(threadBlock);
    if (at < reinterpret_cast<uintptr_t>(block) || at >= heapEnd)
      return 5;
    if (hugePageEligible(threadBlock) != 1)
      return 6;
    return 0;
  });
}

// Tuning touches nothing of the heap past its first huge page: a page
// touched before the advice leaves its whole 2 MB on 4 KB pages, a fault
// each (malloc once wrote a header there, and a 10k-kernel estimate took 350
// faults more).
TEST(HugePagesDeathTest, TuningTouchesOnlyTheFirstHugePage) {
  expectInTunedProcess([] {
    char *block = static_cast<char *>(std::malloc(size_t(1) << 20));
    uintptr_t first = firstHeapHugePage(block);
    if (reinterpret_cast<uintptr_t>(sbrk(0)) < first + 2 * kHugePage)
      return 3;
    int resident = residentPages(first + kHugePage);
    if (resident < 0)
      return 4;
    if (resident > 0)
      return 5;
    std::free(block);
    return 0;
  });
}

// Small blocks allocated after tuning come from the heap's second huge page
// (the first is left to the 4 KB pages malloc wrote before the advice), or
// from blocks freed before: not from what was left of the
// heap's top below the 2 MB boundary, fresh pages that faulted in one by one
// (30 faults of a 10k-kernel estimate).
TEST(HugePagesDeathTest, SmallBlocksAfterTuningFaultNoFreshPage) {
  expectInTunedProcess([] {
    constexpr size_t kBlocks = 256, kBytes = 256;
    std::vector<char *> blocks(kBlocks);
    rusage before{}, after{};
    getrusage(RUSAGE_SELF, &before);
    for (char *&block : blocks) {
      block = static_cast<char *>(std::malloc(kBytes));
      std::memset(block, 1, kBytes);
    }
    getrusage(RUSAGE_SELF, &after);
    for (char *block : blocks)
      std::free(block);
    // Where the kernel had no huge page to give (memory too fragmented),
    // the blocks' huge page is 4 KB pages too and faults as much: nothing
    // to tell apart.
    char *large = static_cast<char *>(std::malloc(size_t(1) << 20));
    int resident = residentPages(firstHeapHugePage(large));
    std::free(large);
    if (resident < 0)
      return 4;
    if (resident < int(kHugePage / 4096))
      return 0;
    // 64 KB of blocks: sixteen fresh 4 KB pages, or none.
    return after.ru_minflt - before.ru_minflt < 4 ? 0 : 3;
  });
}

// backHeapAhead's thread backs the pages of a block nobody wrote, up to its
// window past the heap's free top, and leaves the rest of a reservation
// alone.
TEST(HugePagesDeathTest, TheHeapIsBackedAheadOfItsTop) {
  if (!kernelPopulatesRanges())
    GTEST_SKIP() << "the kernel cannot populate a range (Linux before 5.14)";
  expectInTunedProcess([] {
    reserveHeap(size_t(256) << 20);
    backHeapAhead();
    // Allocated and never written: only the thread can back it.
    size_t bytes = size_t(64) << 20;
    char *block = static_cast<char *>(std::malloc(bytes));
    uintptr_t begin =
        (reinterpret_cast<uintptr_t>(block) + kHugePage - 1) & ~(kHugePage - 1);
    uintptr_t end = begin + 38 * kHugePage;
    long pages = long(end - begin) / 4096;
    long resident = 0;
    for (int wait = 0; wait < 500 && resident < pages; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      resident = residentPagesIn(begin, end);
    }
    if (resident < 0)
      return 3;
    if (resident < pages)
      return 4;
    // 16 MB past the top (the block's end) at most: a reservation's far end
    // stays virtual, however long the thread runs.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    uintptr_t top = reinterpret_cast<uintptr_t>(block) + bytes;
    uintptr_t past = (top + 10 * kHugePage) & ~(kHugePage - 1);
    if (residentPagesIn(past, past + 16 * kHugePage) != 0)
      return 5;
    std::free(block);
    return 0;
  });
}

TEST(HugePages, AdviceWithoutTuningChangesNothing) {
#if defined(PERF_OWN_ALLOCATOR) || !defined(__GLIBC__)
  GTEST_SKIP() << "the allocator is not glibc's";
#endif
  // Not tuned in this process: the heap's growth is left as it is.
  std::string mode = transparentHugePageMode();
  if (mode != "madvise" || !hugePagesGranted())
    GTEST_SKIP() << "needs the \"madvise\" mode, granted to this process";
  size_t bytes = size_t(256) << 20;
  char *block = static_cast<char *>(std::malloc(bytes));
  adviseHeapGrowth();
  reserveHeap(bytes);
  // glibc maps a block this large on its own, never advised.
  EXPECT_EQ(hugePageEligible(block + bytes / 2), 0);
  std::free(block);
}
