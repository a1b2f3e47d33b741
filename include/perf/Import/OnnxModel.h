//===- OnnxModel.h - An ONNX graph reduced to what costs depend on -*- C++
//-*-===//
//
// The MLIR-free result of loading an ONNX file: nodes in topological order with
// their attributes and the inferred type of every value. Weights are read only
// to find copies of one another (tied weights); otherwise their shapes are all
// that matters, so models whose initializers are stripped or stored
// externally load the same as complete ones.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_IMPORT_ONNXMODEL_H
#define PERF_IMPORT_ONNXMODEL_H

#include "perf/Support/DType.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace perf {

/// Type of one value. `shape` holds -1 for a dimension shape inference could
/// not determine; `hasShape` is false when even the rank is unknown.
struct OnnxValueInfo {
  std::string name;
  DType dtype = DType::F32;
  /// The ONNX TensorProto element type code (1 = float, 7 = int64, ...).
  int elemType = 0;
  bool hasShape = false;
  std::vector<int64_t> shape;
  /// Set for initializers (weights) and Constant outputs.
  bool isConstant = false;
  /// Contents of small integer constants (shape operands, axes, indices).
  std::optional<std::vector<int64_t>> intData;
  /// For an initializer holding the same numbers as an earlier one, or its
  /// 2-D transpose: that one's name. Exporters fold a tied weight (GPT-2's
  /// token embedding and LM head) into a transposed copy; it is one
  /// parameter. Empty where the data is absent (stripped weights).
  std::string duplicateOf;

  bool isFullyKnown() const;
  /// Product of the dimensions; -1 when any is unknown.
  int64_t numElements() const;
};

struct OnnxAttribute {
  enum class Kind {
    Int,
    Float,
    String,
    Ints,
    Floats,
    Strings,
    Tensor,
    Graph,
    Other
  };
  Kind kind = Kind::Other;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
  /// Tensor attributes (Constant's value): dims and, when integral and small,
  /// the values.
  std::vector<int64_t> tensorDims;
  std::optional<std::vector<int64_t>> tensorIntData;
  int tensorElemType = 0;
};

struct OnnxGraph;

struct OnnxNode {
  std::string opType;
  std::string domain;
  /// The node's name, or "<opType>_<index>" when the file gives none.
  std::string name;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  llvm::StringMap<OnnxAttribute> attributes;
  /// Graph-valued attributes (Loop/If/Scan bodies), by attribute name.
  std::vector<std::pair<std::string, std::shared_ptr<OnnxGraph>>> subgraphs;

  const OnnxAttribute *getAttr(llvm::StringRef attrName) const;
  int64_t getInt(llvm::StringRef attrName, int64_t dflt) const;
  double getFloat(llvm::StringRef attrName, double dflt) const;
  std::string getString(llvm::StringRef attrName, llvm::StringRef dflt) const;
  std::vector<int64_t> getInts(llvm::StringRef attrName) const;
};

struct OnnxGraph {
  std::string name;
  /// Runtime inputs (graph inputs that are not initializers), in order.
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  /// Initializer names (weights), in file order.
  std::vector<std::string> initializers;
  std::vector<OnnxNode> nodes;
  /// Every value this graph defines or uses, by name.
  llvm::StringMap<OnnxValueInfo> values;

  const OnnxValueInfo *lookup(llvm::StringRef valueName) const;
};

struct OnnxModel {
  std::string path;
  int64_t irVersion = 0;
  std::string producerName;
  /// Imported opsets: domain ("" is ai.onnx) -> version.
  std::vector<std::pair<std::string, int64_t>> opsets;
  /// Batch size of the runtime inputs after loading (dim 0 of the first
  /// input), or -1 when that is symbolic.
  int64_t batchSize = -1;
  OnnxGraph graph;
};

struct OnnxLoadOptions {
  /// When > 0, dim 0 of every runtime input is set to this and shapes are
  /// inferred again.
  int64_t batchSize = 0;
  /// When > 0, dim 1 (the sequence) of every runtime input of rank 2 or more
  /// is set to this and shapes are inferred again.
  int64_t sequenceLength = 0;
  /// Run the ONNX checker before shape inference.
  bool runChecker = true;
};

/// Reads, validates and shape-infers an ONNX model. Errors are one line that
/// names the file and, where there is one, the node.
llvm::Expected<OnnxModel> loadOnnxModel(llvm::StringRef path,
                                        const OnnxLoadOptions &options = {});

/// Same, from bytes already in memory; `bufferName` names them in errors.
llvm::Expected<OnnxModel>
loadOnnxModelFromBuffer(llvm::StringRef bytes, llvm::StringRef bufferName,
                        const OnnxLoadOptions &options = {});

/// The highest opset of `domain` the linked ONNX library knows, or -1 when it
/// does not know the domain.
int64_t onnxMaxKnownOpset(llvm::StringRef domain);

} // namespace perf

#endif // PERF_IMPORT_ONNXMODEL_H
