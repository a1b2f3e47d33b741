#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "perf translation tool\n"));
}
