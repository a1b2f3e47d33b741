//===- TranslateRegistration.cpp - perf-translate's translations ----------===//
//
// Apart from Registration.cpp so that only perf-translate links the
// importers' libraries (ONNX, protobuf, simdjson).
//
//===----------------------------------------------------------------------===//

#include "perf/Export/ChakraExport.h"
#include "perf/Import/ModelConfigImport.h"
#include "perf/Import/OnnxImport.h"
#include "perf/Import/TraceImport.h"
#include "perf/Tools/Registration.h"

void perf::registerPerfTranslations() {
  registerOnnxImportTranslation();
  registerTraceImportTranslations();
  registerModelConfigImportTranslation();
  registerFxCsvImportTranslation();
  registerChakraTranslations();
}
