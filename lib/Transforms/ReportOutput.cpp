//===- ReportOutput.cpp ---------------------------------------------------===//

#include "perf/Transforms/ReportOutput.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

LogicalResult perf::writeReport(Operation *op, llvm::StringRef path,
                                llvm::StringRef text) {
  if (path.empty())
    return success();
  // A temporary file renamed into place: an interrupted run leaves the old
  // report or none, never half of one.
  if (llvm::Error e = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << text;
        return llvm::Error::success();
      }))
    return op->emitError("cannot write '")
           << path << "': " << llvm::toString(std::move(e));
  return success();
}
