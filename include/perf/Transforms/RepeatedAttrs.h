//===- RepeatedAttrs.h - Setting attributes on ops that repeat --*- C++ -*-===//
//
// A pricing pass writes the same attributes on many ops of a step (every
// layer repeats its kernels). Operation::setAttr uniques a new attribute
// dictionary per op and attribute, which was most of such a pass's time on
// a million-kernel step; here the new dictionary is made once per distinct
// (dictionary before, update) pair and shared by the ops that repeat it.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRANSFORMS_REPEATEDATTRS_H
#define PERF_TRANSFORMS_REPEATEDATTRS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

namespace perf {

/// Applies updates of discardable attributes to ops; `Key` names an update
/// (the value set, or an index into the values): two updates with one key
/// must set the same attributes.
template <typename Key> class RepeatedAttrUpdater {
public:
  explicit RepeatedAttrUpdater(mlir::MLIRContext *context) : context(context) {}

  /// Gives `op` its discardable attributes with `update` applied.
  void apply(mlir::Operation *op, Key key,
             llvm::function_ref<void(mlir::NamedAttrList &)> update) {
    mlir::DictionaryAttr before = op->getDiscardableAttrDictionary();
    mlir::DictionaryAttr &after = updated[{before, key}];
    if (!after) {
      mlir::NamedAttrList attrs(before);
      update(attrs);
      after = attrs.getDictionary(context);
    }
    op->setDiscardableAttrs(after);
  }

private:
  mlir::MLIRContext *context;
  llvm::DenseMap<std::pair<mlir::Attribute, Key>, mlir::DictionaryAttr> updated;
};

} // namespace perf

#endif // PERF_TRANSFORMS_REPEATEDATTRS_H
