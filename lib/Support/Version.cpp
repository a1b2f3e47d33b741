//===- Version.cpp - perf's version and revision --------------------------===//

#include "perf/Support/Version.h"
#include "PerfRevision.inc"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include <string>

llvm::StringRef perf::versionString() { return PERF_VERSION_STRING; }

llvm::StringRef perf::gitRevision() { return PERF_GIT_REVISION; }

void perf::printVersion(llvm::raw_ostream &os, llvm::StringRef tool) {
  os << tool << " (perf " << versionString() << ", revision " << gitRevision()
     << ", LLVM " << LLVM_VERSION_STRING << ")\n";
}

void perf::setVersionPrinter(llvm::StringRef tool) {
  llvm::cl::SetVersionPrinter(
      [name = tool.str()](llvm::raw_ostream &os) { printVersion(os, name); });
}
