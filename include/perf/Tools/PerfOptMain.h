//===- PerfOptMain.h - The perf-opt driver ----------------------*- C++ -*-===//

#ifndef PERF_TOOLS_PERFOPTMAIN_H
#define PERF_TOOLS_PERFOPTMAIN_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace perf {
/// perf-opt's main: parses the command line, runs the passes and the
/// estimate on the input (a .mlir, .mlirbc or .onnx file) with the dialects
/// of `registry`, and returns the exit status. The perf passes and pipelines
/// are registered here; the dialects are the caller's (registerPerfDialects
/// and any of its own), as with MlirOptMain. Call it once per process: it
/// registers command-line options.
int perfOptMain(int argc, char **argv, mlir::DialectRegistry &registry);
} // namespace perf

#endif // PERF_TOOLS_PERFOPTMAIN_H
