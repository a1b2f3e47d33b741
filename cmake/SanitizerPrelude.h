//===- SanitizerPrelude.h - Included first in sanitizer builds --*- C++ -*-===//
//
// Debian's LLVM and MLIR libraries are not built with AddressSanitizer, but
// their headers poison and unpoison recycled memory (Recycler, the bump
// allocator) when the including file is. An inline function instantiated in
// our instrumented code then poisons memory that an uninstrumented copy in
// the libraries hands out again without unpoisoning, and ASan reports a
// use-after-poison that is not there. The manual poisoning is made a no-op
// here; ASan's own checks of every heap and stack access stay on.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SANITIZER_PRELUDE_H
#define PERF_SANITIZER_PRELUDE_H

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#undef ASAN_POISON_MEMORY_REGION
#undef ASAN_UNPOISON_MEMORY_REGION
#define ASAN_POISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#define ASAN_UNPOISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#define __asan_poison_memory_region(addr, size) ((void)(addr), (void)(size))
#define __asan_unpoison_memory_region(addr, size) ((void)(addr), (void)(size))
#endif
#endif

#endif // PERF_SANITIZER_PRELUDE_H
