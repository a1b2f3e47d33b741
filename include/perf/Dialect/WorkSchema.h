//===- WorkSchema.h - The attributes of each kind of device work -*- C++
//-*-===//
//
// Each kind of device work (#perf.work: a kernel, a copy or a collective)
// takes a fixed set of attributes besides the `perf.*` facts passes write.
// This table is that set, written by perf-tblgen from WorkKinds.td: the
// verifier checks work against it, and its error messages list it.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_DIALECT_WORKSCHEMA_H
#define PERF_DIALECT_WORKSCHEMA_H

#include "mlir/IR/Diagnostics.h"
#include "perf/Dialect/PerfAttrs.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace perf {

/// What an attribute of device work must be.
enum class WorkFieldType {
  Size,               // positive i64 at most max-extent
  Count,              // non-negative i64 at most max-extent
  Placement,          // device or stream: 0 to max-devices
  Float,              // f64
  String,             //
  Unit,               // present or absent
  PositivePair,       // array<i64: h, w>, both positive
  NonNegativePair,    // array<i64: h, w>, both non-negative
  ElementType,        // an integer or float type
  Pass,               // #perf.pass<...>
  CopyDirection,      // #perf.copy<...>
  OptimizerAlgorithm, // #perf.optimizer<...>
  NcclAlgorithm,      // #perf.nccl<...>
  DeviceList,         // array<i64: ...> of device ids
  I64Array,           // array<i64: ...>
};

struct WorkField {
  llvm::StringLiteral name;
  WorkFieldType type;
  bool required;
  /// The value an absent attribute stands for, when it has one: an
  /// integer, a float, or an enum's value. Work equal to it leaves the
  /// attribute out, so that it prints as written and uniques as one.
  std::optional<double> dflt = std::nullopt;
};

struct WorkSchema {
  WorkKind kind;
  llvm::StringLiteral summary;
  /// The kind's own attributes; getCommonWorkFields has the rest.
  llvm::ArrayRef<WorkField> fields;
};

/// The row of `kind`.
const WorkSchema &getWorkSchema(WorkKind kind);
/// The attributes every kernel (or every collective) takes: placement,
/// element type, and for kernels the library name, the training pass and
/// tensor cores; for collectives the bytes, the group and the algorithm.
llvm::ArrayRef<WorkField> getCommonWorkFields(WorkKind kind);
/// The field `name` of `kind`, null when it takes no such attribute.
const WorkField *findWorkField(WorkKind kind, llvm::StringRef name);
/// `attrs` without the attributes that hold their kind's default value.
mlir::DictionaryAttr withoutDefaults(WorkKind kind, mlir::DictionaryAttr attrs);
/// The kind of "perf.gemm", "perf.all_reduce", as a work list writes it.
std::optional<WorkKind> parseWorkMnemonic(llvm::StringRef name);

namespace detail {
// The attribute a value of each field type is written as (null: absent),
// for the generated views and builders.
mlir::Attribute intFieldValue(mlir::MLIRContext *context, int64_t value);
mlir::Attribute floatFieldValue(mlir::MLIRContext *context, double value);
mlir::Attribute stringFieldValue(mlir::MLIRContext *context,
                                 llvm::StringRef value);
mlir::Attribute flagFieldValue(mlir::MLIRContext *context, bool value);
mlir::Attribute pairFieldValue(mlir::MLIRContext *context,
                               const std::pair<int64_t, int64_t> &value);
mlir::Attribute typeFieldValue(mlir::Type value);
mlir::Attribute arrayFieldValue(mlir::MLIRContext *context,
                                llvm::ArrayRef<int64_t> value);

/// The attributes of work being built from a description: each kind's
/// generated setters add to it, and build() checks the result against the
/// kind's schema, reporting through `emitError` (at an unknown location
/// when null): sizes come from files perf did not write.
class WorkFields {
public:
  WorkFields(mlir::MLIRContext *context,
             llvm::function_ref<mlir::InFlightDiagnostic()> emitError)
      : ctx(context), emitError(emitError) {}
  mlir::MLIRContext *context() const { return ctx; }
  /// Sets `name` (nothing when `value` is null).
  void set(llvm::StringRef name, mlir::Attribute value);
  mlir::FailureOr<WorkAttr> build(WorkKind kind);

private:
  mlir::MLIRContext *ctx;
  llvm::function_ref<mlir::InFlightDiagnostic()> emitError;
  mlir::NamedAttrList attrs;
};
} // namespace detail

/// Checks a `perf.*` fact a pass wrote (on an op or in device work): a
/// declared name, of its declared type, in its range. `onMemcpy`: whether
/// it is on a copy (perf.copy_in_call is only for copies).
mlir::LogicalResult
verifyPerfFact(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
               llvm::StringRef name, mlir::Attribute value, bool onMemcpy);

} // namespace perf

#endif // PERF_DIALECT_WORKSCHEMA_H
