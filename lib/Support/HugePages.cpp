//===- HugePages.cpp - Large arrays backed by huge pages ------------------===//

#include "perf/Support/HugePages.h"

#include <cstdint>

#ifdef __linux__
#include <sys/mman.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
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

void perf::keepFreedMemoryForReuse() {
#ifdef __GLIBC__
  // Every block from the heap, none mapped on its own, and the heap's top
  // never trimmed.
  (void)mallopt(M_MMAP_MAX, 0);
  (void)mallopt(M_TRIM_THRESHOLD, INT32_MAX);
#endif
}
