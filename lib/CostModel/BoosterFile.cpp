//===- BoosterFile.cpp - XGBoost files checked before XGBoost reads them -===//
//
// XGBoost trusts its model files: a child index out of range is read out of
// bounds, a child that points back up loops forever, a split on a feature
// past the input reads past it, and its JSON reader recurses. A model folder
// comes from elsewhere (downloaded, copied, half-written), so every booster
// file is parsed and checked here first, within the project's limits, and
// XGBoost only ever sees a tree ensemble of the shape perf-train writes, in
// JSON or UBJSON.
//
//===----------------------------------------------------------------------===//

#include "perf/CostModel/MlModel.h"
#include "perf/Support/DocNode.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Limits.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <cstdlib>

using namespace perf;

namespace {
/// Checks one booster document, naming the first bad value by its path in
/// the document.
class BoosterChecker {
public:
  explicit BoosterChecker(unsigned numFeatures) : numFeatures(numFeatures) {}

  llvm::Error check(const DocNode &root);

  /// The trees checked, to walk in place (after a check that passed).
  TreeEnsemble takeEnsemble() {
    return TreeEnsemble(baseScore, std::move(treeNodes), std::move(treeRoots));
  }

private:
  llvm::Error bad(const llvm::Twine &where, const llvm::Twine &what) {
    return llvm::createStringError("XGBoost model: " + where + ": " + what);
  }
  /// XGBoost writes its parameters as strings of digits.
  llvm::Expected<int64_t> paramInteger(const DocNode &o, llvm::StringRef key,
                                       const llvm::Twine &where);
  llvm::Error checkTree(const DocNode &tree, size_t index);

  unsigned numFeatures;
  int64_t totalNodes = 0;
  /// The sum over trees of the largest leaf magnitude: a bound on what the
  /// trees add to base_score.
  double leafBound = 0;
  /// The trees as they are checked, one after another.
  float baseScore = 0;
  std::vector<TreeEnsemble::Node> treeNodes;
  std::vector<uint32_t> treeRoots;
};
} // namespace

llvm::Expected<int64_t> BoosterChecker::paramInteger(const DocNode &o,
                                                     llvm::StringRef key,
                                                     const llvm::Twine &where) {
  std::optional<llvm::StringRef> text = o.getString(key);
  int64_t value;
  if (!text || text->empty() || !llvm::all_of(*text, llvm::isDigit) ||
      text->getAsInteger(10, value))
    return bad(where + "." + key, "must be a string of decimal digits");
  return value;
}

llvm::Error BoosterChecker::checkTree(const DocNode &tree, size_t index) {
  std::string where = llvm::formatv("trees[{0}]", index).str();
  const DocNode *param = tree.getObject("tree_param");
  if (!param)
    return bad(where, "needs an object 'tree_param'");
  auto nodes = paramInteger(*param, "num_nodes", where + ".tree_param");
  if (!nodes)
    return nodes.takeError();
  auto features = paramInteger(*param, "num_feature", where + ".tree_param");
  if (!features)
    return features.takeError();
  auto leafVector =
      paramInteger(*param, "size_leaf_vector", where + ".tree_param");
  if (!leafVector)
    return leafVector.takeError();
  if (*nodes < 1 || *features != numFeatures || *leafVector != 0)
    return bad(where + ".tree_param", "needs num_nodes >= 1, num_feature " +
                                          llvm::Twine(numFeatures) +
                                          " and size_leaf_vector 0");
  totalNodes += *nodes;
  if (!withinLimit(totalNodes, kMaxGraphOps))
    return bad(where, limitExceeded("the nodes of all trees", totalNodes,
                                    kMaxGraphOps));
  if (tree.getInteger("id") != int64_t(index))
    return bad(where + ".id", "must be " + llvm::Twine(index));

  // Every per-node array has one entry per node.
  auto array = [&](llvm::StringRef key,
                   size_t size) -> llvm::Expected<const DocNode *> {
    const DocNode *a = tree.getArray(key);
    if (!a || a->size() != size)
      return bad(where + "." + key,
                 "must be an array of " + llvm::Twine(size) + " entries");
    return a;
  };
  size_t n = *nodes;
  const char *const integerArrays[] = {"left_children", "right_children",
                                       "parents",       "split_indices",
                                       "default_left",  "split_type"};
  const char *const numberArrays[] = {"split_conditions", "base_weights",
                                      "loss_changes", "sum_hessian"};
  std::vector<std::vector<int64_t>> ints;
  for (const char *key : integerArrays) {
    auto a = array(key, n);
    if (!a)
      return a.takeError();
    if (!(*a)->appendIntegers(ints.emplace_back()))
      return bad(where + "." + key, "must hold integers");
  }
  double largestLeaf = 0;
  std::vector<double> numbers, conditions;
  for (const char *key : numberArrays) {
    auto a = array(key, n);
    if (!a)
      return a.takeError();
    numbers.clear();
    if (!(*a)->appendNumbers(numbers) ||
        !llvm::all_of(numbers, [](double d) { return std::isfinite(d); }))
      return bad(where + "." + key, "must hold finite numbers");
    // A leaf's value is its split condition.
    if (llvm::StringRef(key) == "split_conditions") {
      for (size_t j = 0; j < n; ++j)
        if (ints[0][j] == -1)
          largestLeaf = std::max(largestLeaf, std::abs(numbers[j]));
      conditions = numbers;
    }
  }
  leafBound += largestLeaf;
  for (const char *key : {"categories", "categories_nodes",
                          "categories_segments", "categories_sizes"}) {
    auto a = array(key, 0);
    if (!a)
      return bad(where + "." + key, "must be empty (no categorical splits)");
  }

  // A tree: node 0 is the root, every other node is the child of exactly
  // one node listed before it, and a node has two children or none.
  const std::vector<int64_t> &left = ints[0], &right = ints[1],
                             &parents = ints[2], &splitIndex = ints[3],
                             &defaultLeft = ints[4], &splitType = ints[5];
  std::vector<int64_t> parentOf(n, -1);
  // Named only for an error: formatting it for every node was a tenth of
  // the load time of the shipped folder.
  auto nodeName = [&](size_t i) {
    return llvm::formatv("{0}.node[{1}]", where, i).str();
  };
  for (size_t i = 0; i < n; ++i) {
    if ((left[i] == -1) != (right[i] == -1))
      return bad(nodeName(i), "has one child; a node has two or none");
    if (defaultLeft[i] != 0 && defaultLeft[i] != 1)
      return bad(nodeName(i), "default_left must be 0 or 1");
    if (splitType[i] != 0)
      return bad(nodeName(i), "split_type must be 0 (numerical)");
    if (left[i] == -1)
      continue;
    if (splitIndex[i] < 0 || splitIndex[i] >= int64_t(numFeatures))
      return bad(nodeName(i),
                 "splits on feature " + llvm::Twine(splitIndex[i]) +
                     "; the model has " + llvm::Twine(numFeatures));
    for (int64_t child : {left[i], right[i]}) {
      if (child <= int64_t(i) || child >= int64_t(n))
        return bad(nodeName(i), "child " + llvm::Twine(child) +
                                    " is not a later node of the tree");
      if (parentOf[child] != -1)
        return bad(nodeName(i),
                   "child " + llvm::Twine(child) + " already has a parent");
      parentOf[child] = i;
    }
    // XGBoost's predictor finds the right child next to the left one.
    if (right[i] != left[i] + 1)
      return bad(nodeName(i), "right child " + llvm::Twine(right[i]) +
                                  " does not follow the left child " +
                                  llvm::Twine(left[i]));
  }
  for (size_t i = 1; i < n; ++i)
    if (parentOf[i] == -1 || parents[i] != parentOf[i])
      return bad(llvm::formatv("{0}.node[{1}]", where, i).str(),
                 "is not the child its 'parents' entry names");

  // XGBoost holds thresholds and leaves in single precision.
  const auto first = static_cast<int32_t>(treeNodes.size());
  treeRoots.push_back(uint32_t(first));
  for (size_t i = 0; i < n; ++i) {
    TreeEnsemble::Node node;
    node.value = static_cast<float>(conditions[i]);
    if (left[i] != -1) {
      node.feature = uint32_t(splitIndex[i]);
      node.left = first + int32_t(left[i]);
      node.right = first + int32_t(right[i]);
      node.defaultLeft = defaultLeft[i] != 0;
    }
    treeNodes.push_back(node);
  }
  return llvm::Error::success();
}

llvm::Error BoosterChecker::check(const DocNode &root) {
  const DocNode *learner = root.getObject("learner");
  if (!learner)
    return bad("(root)", "needs an object 'learner'");
  const DocNode *version = root.getArray("version");
  if (!version || version->size() != 3 || !version->integerAt(0) ||
      !version->integerAt(1) || !version->integerAt(2))
    return bad("version", "must be three integers");
  for (llvm::StringRef key : {"feature_names", "feature_types"})
    if (const DocNode *a = learner->getArray(key); a && a->size() != 0)
      return bad("learner." + key, "must be empty");

  const DocNode *param = learner->getObject("learner_model_param");
  if (!param)
    return bad("learner", "needs an object 'learner_model_param'");
  auto features = paramInteger(*param, "num_feature", "learner_model_param");
  if (!features)
    return features.takeError();
  if (*features != numFeatures)
    return bad("learner_model_param.num_feature", "must be " +
                                                      llvm::Twine(numFeatures) +
                                                      ", the features perf "
                                                      "computes");
  auto classes = paramInteger(*param, "num_class", "learner_model_param");
  if (!classes)
    return classes.takeError();
  if (*classes != 0)
    return bad("learner_model_param.num_class", "must be 0 (a regression)");
  if (param->get("num_target")) {
    auto targets = paramInteger(*param, "num_target", "learner_model_param");
    if (!targets)
      return targets.takeError();
    if (*targets != 1)
      return bad("learner_model_param.num_target", "must be 1");
  }
  std::optional<llvm::StringRef> baseScore = param->getString("base_score");
  double base;
  if (!baseScore || baseScore->trim().getAsDouble(base) || !std::isfinite(base))
    return bad("learner_model_param.base_score",
               "must be a string holding a finite number");
  // XGBoost reads it as a float from the same text.
  this->baseScore = std::strtof(baseScore->trim().str().c_str(), nullptr);

  const DocNode *objective = learner->getObject("objective");
  if (!objective || objective->getString("name") != "reg:squarederror")
    return bad("learner.objective", "must be reg:squarederror");

  const DocNode *booster = learner->getObject("gradient_booster");
  if (!booster || booster->getString("name") != "gbtree")
    return bad("learner.gradient_booster", "must be a gbtree");
  const DocNode *model = booster->getObject("model");
  const DocNode *trees = model ? model->getArray("trees") : nullptr;
  const DocNode *treeInfo = model ? model->getArray("tree_info") : nullptr;
  const DocNode *modelParam =
      model ? model->getObject("gbtree_model_param") : nullptr;
  if (!trees || !treeInfo || !modelParam)
    return bad("learner.gradient_booster.model",
               "needs 'trees', 'tree_info' and 'gbtree_model_param'");
  auto numTrees = paramInteger(*modelParam, "num_trees", "gbtree_model_param");
  if (!numTrees)
    return numTrees.takeError();
  auto parallel =
      paramInteger(*modelParam, "num_parallel_tree", "gbtree_model_param");
  if (!parallel)
    return parallel.takeError();
  if (*numTrees != int64_t(trees->size()) ||
      treeInfo->size() != trees->size() || *parallel != 1)
    return bad("gbtree_model_param",
               "num_trees must count 'trees' and 'tree_info', "
               "num_parallel_tree must be 1");
  for (size_t i = 0; i < treeInfo->size(); ++i)
    if (treeInfo->integerAt(i) != 0)
      return bad("tree_info", "must hold zeros (one output group)");
  for (size_t i = 0; i < trees->size(); ++i) {
    const DocNode *tree = trees->at(i);
    if (!tree || !tree->isObject())
      return bad(llvm::formatv("trees[{0}]", i).str(), "must be an object");
    if (llvm::Error e = checkTree(*tree, i))
      return e;
  }
  // The models predict the log of a price over a baseline: past e^700 the
  // price overflows to infinity (a booster that passed every check above
  // priced every element-wise kernel at inf).
  constexpr double kMaxLogResidual = 700;
  double bound = std::abs(base) + leafBound;
  if (bound > kMaxLogResidual)
    return bad("trees",
               llvm::formatv("base_score and the largest leaves add "
                             "up to {0:F1}; a log-residual past {1:F0} "
                             "overflows the price",
                             bound, kMaxLogResidual)
                   .str());
  return llvm::Error::success();
}

/// Reads and checks the booster at `path`; its bytes, and its trees in
/// `ensemble` where given.
static llvm::Expected<std::string>
readChecked(llvm::StringRef path, unsigned numFeatures,
            std::optional<TreeEnsemble> *ensemble) {
  llvm::Expected<std::string> bytes = readMaybeGzipFile(path);
  if (!bytes)
    return bytes.takeError();
  // XGBoost reads '{' then '"' as JSON text and '{' then a letter (a key's
  // length marker) as UBJSON, and nothing else: the same test here, so it
  // parses exactly what was checked.
  llvm::StringRef text = *bytes;
  bool isText = text.starts_with("{\"");
  if (!isText &&
      !(text.size() >= 2 && text[0] == '{' && llvm::isAlpha(text[1])))
    return fileError(path, "not an XGBoost model (JSON starting '{\"' or "
                           "UBJSON starting '{' and a length marker)");
  // A JSON booster is viewed through the value it was parsed into.
  std::optional<llvm::json::Value> json;
  std::optional<DocNode> doc;
  if (isText) {
    llvm::Expected<llvm::json::Value> parsed = parseJsonInput(text, path);
    if (!parsed)
      return parsed.takeError();
    json = std::move(*parsed);
    doc = DocNode::fromJson(*json);
  } else {
    llvm::Expected<DocNode> parsed = parseUbjsonInput(text, path);
    if (!parsed)
      return parsed.takeError();
    doc = std::move(*parsed);
  }
  BoosterChecker checker(numFeatures);
  if (llvm::Error e = checker.check(*doc))
    return fileError(path, llvm::toString(std::move(e)));
  if (ensemble)
    ensemble->emplace(checker.takeEnsemble());
  return bytes;
}

llvm::Expected<std::string> perf::readBoosterFile(llvm::StringRef path,
                                                  unsigned numFeatures) {
  return readChecked(path, numFeatures, nullptr);
}

llvm::Expected<TreeEnsemble> perf::readBooster(llvm::StringRef path,
                                               unsigned numFeatures) {
  std::optional<TreeEnsemble> ensemble;
  if (llvm::Expected<std::string> bytes =
          readChecked(path, numFeatures, &ensemble);
      !bytes)
    return bytes.takeError();
  return std::move(*ensemble);
}
