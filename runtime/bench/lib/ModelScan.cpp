//===- ModelScan.cpp - perf kernel ops in textual MLIR, without MLIR ------===//
//
// perf-bench must build where only the CUDA toolkit is installed, so it reads
// the printed IR instead of linking the dialect. It looks only at what the
// printer writes for an op: its name (`perf.gemm` or, in generic form,
// `"perf.gemm"`) and the attribute dictionaries on the same line (`<{...}>`
// properties and `{...}` attributes). Anything else is left alone.
//
//===----------------------------------------------------------------------===//

#include "bench/Spec.h"

#include <cctype>
#include <cstdlib>

using namespace bench;

static bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '.';
}

static std::string trim(const std::string &s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
    --e;
  return s.substr(b, e - b);
}

/// Splits at commas outside brackets and strings.
static bool splitTopLevel(const std::string &s, std::vector<std::string> &out,
                          std::string &error) {
  int depth = 0;
  std::string cur;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != '"')
        j += s[j] == '\\' ? 2 : 1;
      if (j >= s.size()) {
        error = "unterminated string";
        return false;
      }
      cur += s.substr(i, j - i + 1);
      i = j;
      continue;
    }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '>') { // "->" in types
      cur += "->";
      ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<')
      ++depth;
    if (c == ')' || c == ']' || c == '}' || c == '>')
      if (--depth < 0) {
        error = std::string("unbalanced '") + c + "'";
        return false;
      }
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (depth != 0) {
    error = "unbalanced brackets";
    return false;
  }
  if (!trim(cur).empty() || !out.empty())
    out.push_back(cur);
  return true;
}

/// "64 : i64" -> 64; false if `text` is no integer literal.
static bool parseIntLiteral(const std::string &text, int64_t &out) {
  std::string t = trim(text);
  size_t colon = t.find(':');
  if (colon != std::string::npos)
    t = trim(t.substr(0, colon));
  if (t.empty())
    return false;
  size_t i = (t[0] == '-') ? 1 : 0;
  if (i == t.size())
    return false;
  for (size_t j = i; j < t.size(); ++j)
    if (!std::isdigit(static_cast<unsigned char>(t[j])))
      return false;
  out = std::strtoll(t.c_str(), nullptr, 10);
  return true;
}

static AttrValue parseValue(const std::string &raw) {
  std::string v = trim(raw);
  int64_t number;
  if (parseIntLiteral(v, number))
    return AttrValue::ofInt(number);
  if (v == "true" || v == "false")
    return AttrValue::ofInt(v == "true" ? 1 : 0);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
    std::string s;
    for (size_t i = 1; i + 1 < v.size(); ++i) {
      if (v[i] == '\\' && i + 2 < v.size())
        ++i;
      s += v[i];
    }
    return AttrValue::ofString(s);
  }
  // array<i64: 1, 2> and [1, 2] / [1 : i64, 2 : i64].
  std::string inner;
  bool list = false;
  if (v.rfind("array<", 0) == 0 && v.back() == '>') {
    inner = v.substr(6, v.size() - 7);
    size_t colon = inner.find(':');
    inner = colon == std::string::npos ? "" : inner.substr(colon + 1);
    list = true;
  } else if (v.size() >= 2 && v.front() == '[' && v.back() == ']') {
    inner = v.substr(1, v.size() - 2);
    list = true;
  }
  if (list) {
    std::vector<std::string> parts;
    std::string error;
    std::vector<int64_t> values;
    bool ok = splitTopLevel(inner, parts, error);
    for (const std::string &p : parts) {
      int64_t x;
      if (!ok || !parseIntLiteral(p, x)) {
        ok = false;
        break;
      }
      values.push_back(x);
    }
    if (ok)
      return AttrValue::ofArray(values);
    return AttrValue::ofString(v);
  }
  // An enum-like attribute, #perf.dtype<f16> or #perf<dtype f16>: the last
  // word inside the angle brackets.
  if (!v.empty() && v.front() == '#' && v.back() == '>') {
    size_t open = v.find('<');
    if (open != std::string::npos) {
      std::string body = trim(v.substr(open + 1, v.size() - open - 2));
      size_t space = body.find_last_of(" \t");
      return AttrValue::ofString(
          space == std::string::npos ? body : body.substr(space + 1));
    }
  }
  return AttrValue::ofString(v); // bare identifiers: f16, bf16 ...
}

bool bench::parseAttrDict(const std::string &body, AttrMap &out,
                          std::string &error) {
  std::vector<std::string> entries;
  if (!splitTopLevel(body, entries, error))
    return false;
  for (const std::string &raw : entries) {
    std::string entry = trim(raw);
    if (entry.empty()) {
      error = "empty attribute entry";
      return false;
    }
    std::string key, value;
    size_t eq = std::string::npos;
    if (entry.front() == '"') {
      size_t close = entry.find('"', 1);
      if (close == std::string::npos) {
        error = "unterminated attribute name";
        return false;
      }
      key = entry.substr(1, close - 1);
      eq = entry.find('=', close);
    } else {
      size_t i = 0;
      while (i < entry.size() && isIdentChar(entry[i]))
        ++i;
      key = entry.substr(0, i);
      eq = entry.find('=', i);
      if (key.empty() || (i < entry.size() && eq == std::string::npos) ||
          (eq != std::string::npos && !trim(entry.substr(i, eq - i)).empty())) {
        error = "malformed attribute '" + entry + "'";
        return false;
      }
    }
    if (eq == std::string::npos) {
      out[key] = AttrValue::ofInt(1); // unit attribute
      continue;
    }
    value = trim(entry.substr(eq + 1));
    if (value.empty()) {
      error = "attribute '" + key + "' has no value";
      return false;
    }
    out[key] = parseValue(value);
  }
  return true;
}

static const char *kernelKindOfOp(const std::string &op) {
  for (const std::string &kind : benchKinds())
    if (op == kind)
      return kind.c_str();
  return nullptr;
}

bool bench::scanModel(const std::string &text, const std::string &name,
                      ModelScan &out, std::string &error) {
  std::set<std::string> seen;
  for (const Kernel &k : out.kernels)
    seen.insert(k.key());
  size_t line = 1;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n')
        ++i;
      continue;
    }
    size_t nameStart = std::string::npos;
    bool quoted = false;
    if (c == '"') {
      if (text.compare(i + 1, 5, "perf.") == 0) {
        nameStart = i + 1;
        quoted = true;
      } else {
        // Skip an unrelated string literal.
        ++i;
        while (i < n && text[i] != '"' && text[i] != '\n')
          i += text[i] == '\\' ? 2 : 1;
        ++i;
        continue;
      }
    } else if (c == 'p' && text.compare(i, 5, "perf.") == 0 &&
               (i == 0 || (!isIdentChar(text[i - 1]) && text[i - 1] != '#' &&
                           text[i - 1] != '!' && text[i - 1] != '@' &&
                           text[i - 1] != '%' && text[i - 1] != '^'))) {
      nameStart = i;
    }
    if (nameStart == std::string::npos) {
      ++i;
      continue;
    }
    size_t end = nameStart;
    while (end < n && isIdentChar(text[end]))
      ++end;
    std::string opName = text.substr(nameStart + 5, end - nameStart - 5);
    i = end + (quoted && end < n && text[end] == '"' ? 1 : 0);
    const char *kind = kernelKindOfOp(opName);
    if (!kind) {
      ++out.unknownOps["perf." + opName];
      continue;
    }
    ++out.kernelOps;
    size_t opLine = line;
    std::string where =
        name + ":" + std::to_string(opLine) + ": perf." + opName;
    // Attribute dictionaries that open on the op's line.
    AttrMap attrs;
    size_t j = i;
    while (j < n && text[j] != '\n') {
      if (text[j] == '"') { // a string operand or type, skip
        ++j;
        while (j < n && text[j] != '"' && text[j] != '\n')
          j += text[j] == '\\' ? 2 : 1;
        ++j;
        continue;
      }
      if (text[j] != '{') {
        ++j;
        continue;
      }
      size_t open = j, k = j + 1;
      int depth = 1;
      while (k < n && depth > 0) {
        if (text[k] == '"') {
          ++k;
          while (k < n && text[k] != '"')
            k += text[k] == '\\' ? 2 : 1;
        } else if (text[k] == '{') {
          ++depth;
        } else if (text[k] == '}') {
          --depth;
        }
        ++k;
      }
      if (depth != 0) {
        error = where + ": unterminated attribute dictionary";
        return false;
      }
      std::string body = text.substr(open + 1, k - open - 2);
      for (char b : body)
        if (b == '\n')
          ++line;
      std::string dictError;
      if (!parseAttrDict(body, attrs, dictError)) {
        error = where + ": malformed attribute dictionary: " + dictError;
        return false;
      }
      j = k;
    }
    i = j;
    Kernel kernel;
    std::string reason;
    if (!buildKernel(kind, "f32", attrs, /*strict=*/false, kernel, reason)) {
      ++out.unsupported[reason];
      continue;
    }
    if (seen.insert(kernel.key()).second)
      out.kernels.push_back(std::move(kernel));
  }
  return true;
}

bool bench::scanModelFile(const std::string &path, ModelScan &out,
                          std::string &error) {
  std::string text;
  if (!readFile(path, text, error))
    return false;
  return scanModel(text, path, out, error);
}
