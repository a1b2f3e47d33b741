//===- perf-opt.cpp - perf optimizer and estimator ------------------------===//
//
// mlir-opt with the perf dialect and passes; the driver is perf::perfOptMain
// (lib/Tools/PerfOptMain.cpp), so a tool with dialects of its own can reuse
// it with a registry of its own.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "perf/Support/HugePages.h"
#include "perf/Tools/PerfOptMain.h"
#include "perf/Tools/Registration.h"
#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  perf::tuneHeapForLargeGraphs();
  mlir::DialectRegistry registry;
  perf::registerPerfDialects(registry);
  return perf::perfOptMain(argc, argv, registry);
}
