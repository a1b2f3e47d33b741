//===- DocNode.h - A JSON-shaped document read in place ---------*- C++ -*-===//
//
// Checking a large binary document (an XGBoost booster: tens of thousands of
// numbers per tree in packed UBJSON arrays) does not need a JSON value per
// number. A DocNode holds JSON's values, but its strings point into the
// bytes it was read from and a packed numeric array ('[$l#', '[$d#', ...)
// stays packed, each element decoded when it is read. The bytes (or the
// llvm::json::Value a node was made from) must outlive the nodes.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_DOCNODE_H
#define PERF_SUPPORT_DOCNODE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <optional>
#include <utility>
#include <vector>

namespace perf {

class DocNode {
public:
  enum class Kind : uint8_t {
    Null,
    Boolean,
    Integer,
    Number,
    String,
    Array,
    Object
  };

  static DocNode null() { return DocNode(Kind::Null); }
  static DocNode boolean(bool value);
  static DocNode integer(int64_t value);
  static DocNode number(double value);
  static DocNode string(llvm::StringRef value);
  static DocNode array(std::vector<DocNode> items);
  /// `count` big-endian elements of UBJSON type `marker` (an integer or
  /// floating-point marker) at `bytes`, which holds exactly their bytes.
  static DocNode packedArray(char marker, uint64_t count,
                             llvm::StringRef bytes);
  static DocNode
  object(std::vector<std::pair<llvm::StringRef, DocNode>> fields);
  /// A view of `value`: its strings and keys stay in `value`.
  static DocNode fromJson(const llvm::json::Value &value);

  /// The bytes of one element of a packed array of type `marker`; 0 when
  /// `marker` is not a numeric type.
  static unsigned packedElementSize(char marker);

  Kind kind() const { return kindOf; }
  bool isArray() const { return kindOf == Kind::Array; }
  bool isObject() const { return kindOf == Kind::Object; }

  /// As llvm::json::Value's: an integer, or a number that is one exactly.
  std::optional<int64_t> getAsInteger() const;
  /// An integer or a number, as a double.
  std::optional<double> getAsNumber() const;
  std::optional<llvm::StringRef> getAsString() const;

  /// Arrays: the element count, and element `i` read as getAsInteger,
  /// getAsNumber or a node (null for a packed array, whose elements are
  /// numbers only).
  size_t size() const;
  std::optional<int64_t> integerAt(size_t i) const;
  std::optional<double> numberAt(size_t i) const;
  /// Arrays: every element read as integerAt (numberAt), appended to `out`;
  /// false if one is not an integer (a number), or this is not an array.
  /// A packed array is decoded in one loop.
  bool appendIntegers(std::vector<int64_t> &out) const;
  bool appendNumbers(std::vector<double> &out) const;
  const DocNode *at(size_t i) const;

  /// Objects: the value of `key` (the last, were a key repeated, as XGBoost
  /// reads it), or null;
  /// the typed getters give null or nullopt for a value of another kind.
  const DocNode *get(llvm::StringRef key) const;
  const DocNode *getObject(llvm::StringRef key) const;
  const DocNode *getArray(llvm::StringRef key) const;
  std::optional<llvm::StringRef> getString(llvm::StringRef key) const;
  std::optional<int64_t> getInteger(llvm::StringRef key) const;
  const std::vector<std::pair<llvm::StringRef, DocNode>> &fields() const {
    return members;
  }

private:
  explicit DocNode(Kind kind) : kindOf(kind) {}

  Kind kindOf;
  /// The element type of a packed array; 0 for any other node.
  char packedMarker = 0;
  bool booleanValue = false;
  int64_t integerValue = 0;
  double numberValue = 0;
  /// A string; a packed array's bytes.
  llvm::StringRef text;
  uint64_t packedCount = 0;
  std::vector<DocNode> items;
  std::vector<std::pair<llvm::StringRef, DocNode>> members;
};

/// Parses Universal Binary JSON `bytes` read from `path` (what XGBoost writes
/// as .ubj, typed and counted containers included) within max-json-depth and
/// with every length and count checked against the bytes left; errors name
/// the file and the byte offset. Packed numeric arrays stay packed.
llvm::Expected<DocNode> parseUbjsonInput(llvm::StringRef bytes,
                                         llvm::StringRef path);

} // namespace perf

#endif // PERF_SUPPORT_DOCNODE_H
