//===- ExecutionTrace.h - PyTorch Execution Trace reader --------*- C++ -*-===//
//
// Reads the PyTorch Execution Trace (ET) JSON: the operator graph an
// ExecutionTraceObserver records. Two layouts exist:
//  - schema 1.0.1: `parent`, flat `inputs`/`input_shapes`/`input_types`,
//    op attributes as top-level keys;
//  - schema 1.0.2 and later (the chakra variants, e.g. 1.1.0-chakra.0.0.4):
//    `ctrl_deps`, `inputs.{values,shapes,types}`, `attrs` as a list of
//    {name, type, value}.
// Both become the same ExecNode list. Data dependencies come from tensor ids:
// a tensor argument is [tensor_id, storage_id, offset, numel, itemsize,
// device].
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRACE_EXECUTIONTRACE_H
#define PERF_TRACE_EXECUTIONTRACE_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <unordered_map>
#include <vector>

namespace perf {
namespace trace {

/// One tensor argument of an op.
struct TensorArg {
  int64_t tensorId = -1;
  int64_t storageId = -1;
  int64_t numel = 0;
  int64_t itemSize = 0;
  /// "cuda:0", "cpu", ...
  std::string device;
  std::vector<int64_t> shape;
  /// Element strides where the trace records them (schema 1.0.2+ `strides`;
  /// empty otherwise).
  std::vector<int64_t> strides;
  /// The element type as the ET spells it: "float", "c10::Half", "long int".
  std::string dtype;
};

struct ExecNode {
  int64_t id = -1;
  /// Parent (schema 1.0.1 `parent`, later `ctrl_deps`).
  int64_t parent = -1;
  /// Record-function id; links to the Kineto event with the same
  /// "Record function id" (or "External id" in traces that lack it).
  int64_t rfId = -1;
  int64_t tid = 0;
  int64_t seqId = -1;
  std::string name;
  std::string opSchema;
  /// Tensor arguments only, lists of tensors flattened.
  std::vector<TensorArg> inputs;
  std::vector<TensorArg> outputs;
  /// Scalar arguments as JSON (ints, floats, strings), in argument order,
  /// tensors replaced by null; the importer reads dims and flags from here.
  std::vector<llvm::json::Value> scalarInputs;
  std::vector<std::string> inputTypes;
  std::vector<size_t> children;
  /// An operator as opposed to an annotation (`[pytorch|...]`, `## ... ##`,
  /// `[param|...]`, `Optimizer.step#...`, `ProfilerStep#...`).
  bool isOperator = false;
};

class ExecutionTrace {
public:
  /// Parses `path` (plain or gzip JSON).
  /// Reads the trace in the file at `path` (.json or .json.gz) with
  /// parseText.
  static llvm::Expected<ExecutionTrace> load(llvm::StringRef path);
  /// The same from the bytes of its file (.json or .json.gz), named
  /// `origin` in errors.
  static llvm::Expected<ExecutionTrace> loadBytes(llvm::StringRef bytes,
                                                  llvm::StringRef origin);
  /// Parses a JSON document; `origin` names it in errors.
  static llvm::Expected<ExecutionTrace> parse(const llvm::json::Value &root,
                                              llvm::StringRef origin);
  /// Parses the trace's JSON text with its "nodes" array read about
  /// `sliceBytes` at a time (whole nodes): one slice is a JSON tree at
  /// once, not the trace. `origin` names it in errors.
  static llvm::Expected<ExecutionTrace>
  parseText(llvm::StringRef text, llvm::StringRef origin,
            size_t sliceBytes = kSliceBytes);
  /// llvm::json holds about 37 bytes per byte of text: a slice's tree stays
  /// near 40 MB.
  static constexpr size_t kSliceBytes = size_t(1) << 20;

  /// The "schema" string as found.
  const std::string &schema() const { return schemaVersion; }
  /// True for the 1.0.2+ layout (inputs as an object, attrs list).
  bool usesNewLayout() const { return newLayout; }
  int64_t pid() const { return processId; }
  const std::vector<ExecNode> &nodes() const { return nodeList; }
  const ExecNode *findNode(int64_t id) const;
  const ExecNode *findByRfId(int64_t rfId) const;

  /// Operators with no operator ancestor, in launch order (node id, which the
  /// observer assigns when an op starts). These are the framework ops the
  /// host launches; their descendants' device work belongs to them.
  const std::vector<size_t> &topLevelOps() const { return topLevel; }

  /// For top-level op `index` (into nodes()): the top-level ops that last
  /// wrote one of its input tensors before it, ascending, no duplicates.
  std::vector<size_t> producersOf(size_t index) const;

  /// Nodes whose parent chain ended in a cycle or a missing node; they are
  /// treated as roots (the self-parent process node is the common case).
  unsigned brokenParentLinks() const { return brokenParents; }

private:
  /// The schema version and pid of the top-level object.
  llvm::Error readHeader(const llvm::json::Object &top, llvm::StringRef origin);
  /// Appends node #`index` of the "nodes" array.
  llvm::Error addNode(const llvm::json::Value &value, size_t index,
                      llvm::StringRef origin);

  std::string schemaVersion;
  bool newLayout = false;
  int64_t processId = 0;
  std::vector<ExecNode> nodeList;
  // Ids are the trace's, any int64: std::unordered_map, since DenseMap
  // reserves INT64_MAX and INT64_MIN as its empty and tombstone keys.
  std::unordered_map<int64_t, size_t> indexById;
  std::unordered_map<int64_t, size_t> indexByRfId;
  std::vector<size_t> topLevel;
  /// Per top-level op: producer top-level ops.
  llvm::DenseMap<size_t, std::vector<size_t>> producers;
  unsigned brokenParents = 0;

  void buildStructure();
};

/// Whether a record-function name is an annotation rather than an operator.
bool isAnnotationName(llvm::StringRef name);

} // namespace trace
} // namespace perf

#endif // PERF_TRACE_EXECUTIONTRACE_H
