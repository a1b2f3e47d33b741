//===- ToolOptions.h - What --help of a perf tool lists ---------*- C++ -*-===//
//
// The LLVM libraries a tool links register hundreds of options (back ends,
// Polly, profiling) before main; a perf tool's --help lists its own options,
// MLIR's and the generic ones, in that layout across tools.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_TOOLOPTIONS_H
#define PERF_SUPPORT_TOOLOPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"

namespace perf {

/// The options registered when it is made: made first thing in main, the
/// linked libraries' and the tool's static ones.
class LibraryOptions {
public:
  LibraryOptions();
  /// Hides from --help those of them outside the `own` categories and
  /// LLVM's generic ones (--help, --version); options registered since (an
  /// MLIR driver's) stay listed. They still parse.
  void hide(llvm::ArrayRef<const llvm::cl::OptionCategory *> own) const;

private:
  llvm::StringSet<> names;
};

} // namespace perf

#endif // PERF_SUPPORT_TOOLOPTIONS_H
