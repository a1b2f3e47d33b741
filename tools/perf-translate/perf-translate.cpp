//===- perf-translate.cpp - Import to and export from perf IR -------------===//

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "perf/Support/Version.h"
#include "perf/Tools/Registration.h"

int main(int argc, char **argv) {
  perf::setVersionPrinter("perf-translate");
  perf::registerPerfTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "perf translation tool\n"));
}
