//===- ModelConfigFuzzer.cpp - HuggingFace config.json --------------------===//
//
// The config is read and its training step built (batch 2, 16 tokens, with
// an Adam step), then verified. Configs of more than 64 blocks (layers of
// both stacks, times the experts a sparse layer repeats) are only read: the
// build is linear in them and every block of a kind is built by the same
// code, so a larger config adds time, not coverage (at 1,024 blocks the
// target ran 63 inputs a second under ASan, at 64 ten times that), and a
// large but valid config is slow work, not a finding (a 20,000-layer Switch
// config builds for 18 s). The importer's own block limits are tested in
// test/Import/Model/model-config-errors.test.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "perf/Import/ModelConfig.h"
#include "perf/Import/ModelConfigImport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<perf::TransformerConfig> config =
      perf::parseModelConfig(perf::fuzz::text(data, size), "config.json");
  if (!config) {
    llvm::consumeError(config.takeError());
    return 0;
  }
  // Each count is at most max-extent (2^40): the sum cannot overflow, and
  // the product is formed only once both factors are small.
  int64_t layers = config->layers + config->decoderLayers;
  int64_t perLayer = 1 + config->experts;
  if (layers > 64 || perLayer > 64 || layers * perLayer > 64)
    return 0;
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
