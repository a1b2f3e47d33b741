//===- perf-translate.cpp - Import to and export from perf IR -------------===//

#include "perf/Tools/Registration.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  perf::registerPerfTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "perf translation tool\n"));
}
