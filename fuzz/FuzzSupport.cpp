//===- FuzzSupport.cpp - What the fuzz targets share ----------------------===//

#include "FuzzSupport.h"
#include "perf/Dialect/PerfDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace perf::fuzz;

const std::string &perf::fuzz::scratchDir() {
  static const std::string dir = [] {
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createUniqueDirectory("perf-fuzz", path)) {
      llvm::errs() << "fuzz: cannot create a scratch folder\n";
      std::abort();
    }
    return path.str().str();
  }();
  return dir;
}

std::string perf::fuzz::writeScratchFile(llvm::StringRef name,
                                         llvm::StringRef bytes) {
  llvm::SmallString<128> path(scratchDir());
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    llvm::errs() << "fuzz: cannot write " << path << "\n";
    std::abort();
  }
  os << bytes;
  return path.str().str();
}

/// The perf dialect alone: what perf's readers build and the perf IR the
/// fuzz-mlir target parses. The upstream dialects perf-opt also registers
/// for --perf-convert-linalg are left out: their parsers are MLIR's, with
/// MLIR's own defects (docs/reliability.md names one), not perf's to fix.
static const mlir::DialectRegistry &registry() {
  static const mlir::DialectRegistry r = [] {
    mlir::DialectRegistry out;
    out.insert<perf::PerfDialect>();
    return out;
  }();
  return r;
}

QuietContext::QuietContext()
    : context(registry(), mlir::MLIRContext::Threading::DISABLED),
      quiet(&context, [](mlir::Diagnostic &) { return mlir::success(); }) {}
