//===- Registration.cpp - One place that lists what the tools offer -------===//

#include "perf/Tools/Registration.h"
#include "perf/Dialect/PerfDialect.h"
#include "perf/Export/ChakraExport.h"
#include "perf/Import/OnnxImport.h"
#include "perf/Import/TraceImport.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectRegistry.h"

void perf::registerPerfDialects(mlir::DialectRegistry &registry) {
  registry.insert<perf::PerfDialect>();
}

void perf::registerPerfToolPasses() {}

void perf::registerPerfTranslations() {
  registerOnnxImportTranslation();
  registerTraceImportTranslations();
  registerChakraTranslations();
}
