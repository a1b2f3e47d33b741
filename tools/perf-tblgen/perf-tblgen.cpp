//===- perf-tblgen.cpp - perf's TableGen backends
//---------------------------===//
//
// TableGen with the backends of WorkKindsGen.cpp registered: what the build
// generates from include/perf/Dialect/WorkKinds.td.
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/InitLLVM.h"
#include "llvm/TableGen/Main.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv);
  return llvm::TableGenMain(argv[0], llvm::TableGenMainFn());
}
