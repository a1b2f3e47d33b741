//===- TreeEnsemble.cpp - A booster's trees, walked in place --------------===//

#include "perf/CostModel/TreeEnsemble.h"
#include <cassert>
#include <cmath>

using namespace perf;

float TreeEnsemble::predict(llvm::ArrayRef<float> features) const {
  // XGBoost starts each row's output at the base score and adds one tree's
  // leaf at a time, in float: the same additions in the same order.
  float sum = baseScore;
  for (uint32_t root : roots) {
    const Node *node = &nodes[root];
    while (node->left >= 0) {
      assert(node->feature < features.size() && "a row too short");
      float value = features[node->feature];
      int32_t next = std::isnan(value)
                         ? (node->defaultLeft ? node->left : node->right)
                         : (value < node->value ? node->left : node->right);
      node = &nodes[next];
    }
    sum += node->value;
  }
  return sum;
}
