//===- Registration.h - Everything the perf tools register ------*- C++ -*-===//

#ifndef PERF_TOOLS_REGISTRATION_H
#define PERF_TOOLS_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace perf {
/// The perf dialect and the upstream dialects perf IR may contain.
void registerPerfDialects(mlir::DialectRegistry &registry);
/// Passes contributed by the importers and transforms beyond the core set.
void registerPerfToolPasses();
/// Translations to and from the perf dialect (perf-translate). Defined in
/// its own library, PerfTranslateRegistration: the importers bring ONNX,
/// protobuf and simdjson, which the other tools do not load.
void registerPerfTranslations();
} // namespace perf

#endif // PERF_TOOLS_REGISTRATION_H
