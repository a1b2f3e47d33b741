//===- Version.h - perf's version and revision ------------------*- C++ -*-===//
//
// What `--version` of every perf tool prints: perf's release, the git
// revision it was built from, and the LLVM it was built with.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_VERSION_H
#define PERF_SUPPORT_VERSION_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace perf {

/// The release ("0.1.0", the CMake project version).
llvm::StringRef versionString();
/// The git revision of the sources ("a286feb1c2d3", "-modified" appended
/// when the tree had changes), or "unknown" outside a git checkout.
llvm::StringRef gitRevision();
/// "<tool> (perf 0.1.0, revision a286feb1c2d3, LLVM 22.1.8)".
void printVersion(llvm::raw_ostream &os, llvm::StringRef tool);
/// Makes `--version` of the calling tool print printVersion instead of
/// LLVM's.
void setVersionPrinter(llvm::StringRef tool);

} // namespace perf

#endif // PERF_SUPPORT_VERSION_H
