//===- perf-translate.cpp - Import to and export from perf IR -------------===//

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "perf/Support/HugePages.h"
#include "perf/Support/ToolOptions.h"
#include "perf/Support/Version.h"
#include "perf/Tools/Registration.h"

int main(int argc, char **argv) {
  // A trace of millions of events becomes a module of as many ops.
  perf::tuneHeapForLargeGraphs();
  // The linked libraries' options stay out of --help; the translations'
  // and mlir-translate's, registered below, are listed.
  perf::LibraryOptions libraryOptions;
  perf::setVersionPrinter("perf-translate");
  perf::registerPerfTranslations();
  libraryOptions.hide({});
  return mlir::failed(mlir::mlirTranslateMain(
      argc, argv,
      "perf-translate: models, traces and configs to perf IR, and perf IR "
      "to Chakra\n\n"
      "  perf-translate --import-model-config "
      "test/Import/Model/Inputs/gpt2_tiny.json --seq=16 -o step.mlir\n"
      "  perf-translate --import-onnx model.onnx --onnx-batch=64 "
      "--emit-bytecode -o step.mlirbc\n"));
}
