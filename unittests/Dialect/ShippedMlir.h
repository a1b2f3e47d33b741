//===- ShippedMlir.h - The .mlir files shipped with perf --------*- C++ -*-===//
//
// Tests that compare a perf reader or verifier with MLIR's run it on every
// graph the project ships: the examples and the lit tests.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_UNITTESTS_DIALECT_SHIPPEDMLIR_H
#define PERF_UNITTESTS_DIALECT_SHIPPEDMLIR_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

namespace perf::testing {

/// Calls `visit(path, part)` on each part of every .mlir file of the
/// examples and the lit tests (a split file's parts, `// -----`, one by
/// one).
inline void forEachShippedMlirPart(
    llvm::function_ref<void(llvm::StringRef path, llvm::StringRef part)>
        visit) {
  for (const char *folder : {"examples", "test"}) {
    std::error_code ec;
    llvm::SmallString<256> root(PERF_SOURCE_DIR);
    llvm::sys::path::append(root, folder);
    for (llvm::sys::fs::recursive_directory_iterator it(root, ec), end;
         it != end && !ec; it.increment(ec)) {
      if (llvm::sys::path::extension(it->path()) != ".mlir")
        continue;
      auto file = llvm::MemoryBuffer::getFile(it->path());
      ASSERT_TRUE(file) << it->path();
      llvm::SmallVector<llvm::StringRef> parts;
      (*file)->getBuffer().split(parts, "// -----");
      for (llvm::StringRef part : parts)
        visit(it->path(), part);
    }
  }
}

} // namespace perf::testing

#endif // PERF_UNITTESTS_DIALECT_SHIPPEDMLIR_H
