//===- ModelConfigFuzzer.cpp - HuggingFace config.json --------------------===//
//
// The config is read and its training step built (batch 2, 16 tokens, with
// an Adam step), then verified.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "perf/Import/ModelConfig.h"
#include "perf/Import/ModelConfigImport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  perf::fuzz::QuietContext context;
  perf::StepOptions options;
  options.batch = 2;
  options.seq = 16;
  options.phase = perf::StepPhase::Training;
  options.optimizer = "adam";
  mlir::OwningOpRef<mlir::ModuleOp> module = perf::importModelConfig(
      &context.get(), perf::fuzz::text(data, size), "config.json", options);
  if (module)
    (void)mlir::verify(*module);
  return 0;
}
