//===- Registration.cpp - One place that lists what the tools offer -------===//

#include "perf/Tools/Registration.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "perf/Conversion/Passes.h"
#include "perf/Dialect/PerfDialect.h"

void perf::registerPerfDialects(mlir::DialectRegistry &registry) {
  registry.insert<perf::PerfDialect>();
  // What --perf-convert-linalg reads.
  registry.insert<mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                  mlir::tensor::TensorDialect>();
}

void perf::registerPerfToolPasses() {
  registerPerfConversionPasses();
  // Drops source locations, e.g. before --emit-bytecode when the step's
  // diagnostics need not point into the text it came from.
  mlir::registerStripDebugInfo();
}
