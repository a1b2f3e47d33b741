//===- FxCsvFuzzer.cpp - NeuSight per-node torch.fx CSV -------------------===//

#include "FuzzSupport.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "perf/Import/ModelConfigImport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  perf::fuzz::QuietContext context;
  perf::FxImportOptions options;
  options.numLayers = 2; // Not read from a label file beside the input.
  mlir::OwningOpRef<mlir::ModuleOp> module = perf::importFxCsv(
      &context.get(), perf::fuzz::text(data, size), "fuzz.csv", options);
  if (module)
    (void)mlir::verify(*module);
  return 0;
}
