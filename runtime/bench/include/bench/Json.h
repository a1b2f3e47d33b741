//===- Json.h - A small JSON reader and writer for perf-bench ---*- C++ -*-===//
//
// perf-bench builds on machines that have only the CUDA toolkit, so it
// carries its own JSON: the sweep specs it reads and the device files it
// writes are small, and objects keep their key order so that a sweep expands
// in the order the file lists its axes.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_BENCH_JSON_H
#define PERF_BENCH_JSON_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bench {

class JsonValue {
public:
  enum class Type { Null, Bool, Number, String, Array, Object };

  JsonValue() = default;
  static JsonValue boolean(bool b);
  static JsonValue number(double d);
  static JsonValue string(std::string s);
  static JsonValue array();
  static JsonValue object();

  Type type() const { return kind; }
  bool isNull() const { return kind == Type::Null; }
  bool isBool() const { return kind == Type::Bool; }
  bool isNumber() const { return kind == Type::Number; }
  bool isString() const { return kind == Type::String; }
  bool isArray() const { return kind == Type::Array; }
  bool isObject() const { return kind == Type::Object; }
  /// A number with no fractional part that fits an int64.
  bool isInteger() const;

  bool asBool() const { return boolValue; }
  double asNumber() const { return numberValue; }
  int64_t asInteger() const { return static_cast<int64_t>(numberValue); }
  const std::string &asString() const { return stringValue; }
  const std::vector<JsonValue> &elements() const { return items; }
  const std::vector<std::pair<std::string, JsonValue>> &members() const {
    return fields;
  }
  /// The member named `key`, or null if there is none.
  const JsonValue *get(const std::string &key) const;

  void push(JsonValue v) { items.push_back(std::move(v)); }
  /// Sets `key`, replacing an existing member in place.
  void set(const std::string &key, JsonValue v);

  /// Serializes with two-space indentation (objects keep insertion order).
  std::string dump(int indent = 2) const;

private:
  void dumpTo(std::string &out, int indent, int depth) const;

  Type kind = Type::Null;
  bool boolValue = false;
  double numberValue = 0;
  std::string stringValue;
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> fields;
};

/// Parses `text`. On failure returns false and sets `error` to
/// "line L, column C: what".
bool parseJson(const std::string &text, JsonValue &out, std::string &error);

/// Quotes a string as a JSON string literal.
std::string jsonQuote(const std::string &s);

} // namespace bench

#endif // PERF_BENCH_JSON_H
