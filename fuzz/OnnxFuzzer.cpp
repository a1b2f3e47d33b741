//===- OnnxFuzzer.cpp - ONNX models: loader, shape inference, lowering ----===//

#include "FuzzSupport.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "perf/Import/OnnxImport.h"
#include "perf/Import/OnnxKernels.h"
#include "perf/Import/OnnxModel.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<perf::OnnxModel> model = perf::loadOnnxModelFromBuffer(
      perf::fuzz::text(data, size), "fuzz.onnx", perf::OnnxLoadOptions());
  if (!model) {
    perf::fuzz::ignore(model.takeError());
    return 0;
  }
  perf::OnnxLowering lowering = perf::lowerOnnxModel(*model);
  perf::fuzz::QuietContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module = perf::buildPerfModuleFromOnnx(
      &context.get(), *model, lowering, perf::OnnxImportOptions());
  if (module)
    (void)mlir::verify(*module);
  return 0;
}
