//===- ReportOutput.cpp ---------------------------------------------------===//

#include "perf/Transforms/ReportOutput.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

LogicalResult perf::writeReport(Operation *op, llvm::StringRef path,
                                llvm::StringRef text) {
  if (path.empty())
    return success();
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return op->emitError("cannot write '") << path << "': " << error;
  file->os() << text;
  file->keep();
  return success();
}
