//===- RepeatedAttrs.h - Setting attributes on ops that repeat --*- C++ -*-===//
//
// A pricing pass writes the same attributes on many ops of a step (every
// layer repeats its kernels). Operation::setAttr uniques a new attribute
// dictionary per op and attribute, which was most of such a pass's time on
// a million-kernel step; here the new dictionary is made once per distinct
// (dictionary before, update) pair and shared by the ops that repeat it.
//
// Device work is uniqued the same way (#perf.work): identical kernels are
// one WorkAttr, and the perf.ops of repeated layers hold one work list.
// RepeatedWorkUpdater rewrites each distinct piece of work, and each
// distinct work list, once per update.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRANSFORMS_REPEATEDATTRS_H
#define PERF_TRANSFORMS_REPEATEDATTRS_H

#include "mlir/IR/Operation.h"
#include "perf/Dialect/PerfOps.h"
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

/// Applies updates to the device work of perf.ops; `Key` names an update as
/// for RepeatedAttrUpdater: two updates with one key must make the same
/// work of the same work (for a list: the same list of the same list).
template <typename Key> class RepeatedWorkUpdater {
public:
  explicit RepeatedWorkUpdater(mlir::MLIRContext *context) : context(context) {}

  /// `work` with `update` applied to its attributes: made once per distinct
  /// (work, key).
  WorkAttr apply(WorkAttr work, Key key,
                 llvm::function_ref<void(mlir::NamedAttrList &)> update) {
    WorkAttr &after = updatedWork[{work, key}];
    if (!after)
      after = work.with(update);
    return after;
  }

  /// Gives `op` the work list whose pieces `rewrite` makes of its current
  /// pieces, in order: the list is made once per distinct (list, key), and
  /// `rewrite` is not called for a list made before.
  void rewrite(FrameworkOp op, Key key,
               llvm::function_ref<WorkAttr(WorkAttr)> rewrite) {
    mlir::ArrayAttr before = op.getWorkAttr();
    if (!before)
      return;
    mlir::ArrayAttr &after = updatedLists[{before, key}];
    if (!after) {
      llvm::SmallVector<mlir::Attribute> pieces;
      pieces.reserve(before.size());
      for (WorkAttr work : op.getWorkList())
        pieces.push_back(rewrite(work));
      after = mlir::ArrayAttr::get(context, pieces);
    }
    if (after != before)
      op.setWorkAttr(after);
  }

private:
  mlir::MLIRContext *context;
  llvm::DenseMap<std::pair<mlir::Attribute, Key>, WorkAttr> updatedWork;
  llvm::DenseMap<std::pair<mlir::Attribute, Key>, mlir::ArrayAttr> updatedLists;
};

} // namespace perf

#endif // PERF_TRANSFORMS_REPEATEDATTRS_H
