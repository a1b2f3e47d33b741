//===- HugePages.cpp - Large arrays backed by huge pages ------------------===//

#include "perf/Support/HugePages.h"

#include <cstdint>

#ifdef __linux__
#include <sys/mman.h>
#endif

void perf::adviseHugePages(const void *data, size_t bytes) {
#ifdef __linux__
  constexpr uintptr_t kHugePage = uintptr_t(2) << 20;
  uintptr_t first = reinterpret_cast<uintptr_t>(data);
  uintptr_t begin = (first + kHugePage - 1) & ~(kHugePage - 1);
  uintptr_t end = (first + bytes) & ~(kHugePage - 1);
  if (end > begin)
    (void)madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}
