//===- TreeEnsemble.h - A booster's trees, walked in place ------*- C++ -*-===//
//
// The regression trees of a learned booster as perf prices with them: an
// XGBoost gbtree (reg:squarederror, numerical splits, one output), read
// from its file once checked (readBooster, MlModel.h) and walked for each
// kernel. The walk is XGBoost's CPU predictor's, bit for bit: a feature
// below a split's threshold goes left, a missing one (NaN) the split's
// default way, and the leaves are added in tree order in single precision
// onto the base score. perf-opt prices without loading XGBoost (which read
// every booster a second time, most of a default-stack estimate); XGBoost
// trains the boosters (perf-train) and checks this walk
// (unittests/CostModel/TreeEnsembleTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_TREEENSEMBLE_H
#define PERF_COSTMODEL_TREEENSEMBLE_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <vector>

namespace perf {

class TreeEnsemble {
public:
  /// A node of one of the trees. The trees' nodes lie one tree after
  /// another; children are indices among all of them.
  struct Node {
    /// A split's threshold, or a leaf's value.
    float value = 0;
    /// The feature a split reads.
    uint32_t feature = 0;
    /// -1 for a leaf.
    int32_t left = -1, right = -1;
    /// Where a missing feature goes.
    bool defaultLeft = false;
  };

  /// `roots`: each tree's first node, in the trees' order. The nodes are
  /// the checked ones of a booster file: children within range, after
  /// their parent, features below the row's length.
  TreeEnsemble(float baseScore, std::vector<Node> nodes,
               std::vector<uint32_t> roots)
      : baseScore(baseScore), nodes(std::move(nodes)), roots(std::move(roots)) {
  }

  /// The ensemble's output for one row of features (as many as the booster
  /// was trained on).
  float predict(llvm::ArrayRef<float> features) const;

  size_t numTrees() const { return roots.size(); }

private:
  float baseScore;
  std::vector<Node> nodes;
  std::vector<uint32_t> roots;
};

} // namespace perf

#endif // PERF_COSTMODEL_TREEENSEMBLE_H
