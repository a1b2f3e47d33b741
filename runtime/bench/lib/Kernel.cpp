//===- Kernel.cpp - Signatures of docs/perf-db.md -------------------------===//

#include "bench/Kernel.h"
#include "bench/ElementwiseOps.h"
#include "perf/Support/DTypeNames.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

using namespace bench;

std::string AttrValue::str() const {
  switch (type) {
  case Type::Int:
    return std::to_string(intValue);
  case Type::String:
    return stringValue;
  case Type::IntArray: {
    std::string s = "[";
    for (size_t i = 0; i < arrayValue.size(); ++i)
      s += (i ? ", " : "") + std::to_string(arrayValue[i]);
    return s + "]";
  }
  }
  return "";
}

std::string Kernel::signature() const {
  std::string s;
  for (const auto &f : fields) {
    if (!s.empty())
      s += ' ';
    s += f.first + "=" + f.second;
  }
  return s;
}

std::string Kernel::key() const {
  return dtype + "|" + kind + "|" + signature();
}

int64_t Kernel::num(const std::string &field) const {
  for (const auto &f : fields)
    if (f.first == field)
      return std::strtoll(f.second.c_str(), nullptr, 10);
  return 0;
}

std::string Kernel::text(const std::string &field) const {
  for (const auto &f : fields)
    if (f.first == field)
      return f.second;
  return "";
}

namespace {
/// How one signature field is read from the attributes.
struct FieldRule {
  const char *field; // signature key
  const char *attrs; // attribute names that set it, '|'-separated
  /// SetBool: a 0/1 field written (`field=1`) only when set, as lib/'s
  /// SetFlagKey, so that keys measured before it was added still match.
  enum Shape { Int, Bool, SetBool, Str, First, Second } shape;
  const char *fallback; // null: required
  const char *allowed;  // for Str: '|'-separated accepted values, or null
  bool positive;        // for Int/First/Second: must be > 0
  /// For Str without `allowed`: the values perf-bench runs.
  bool (*accepts)(const std::string &) = nullptr;
  const char *acceptsWhat = nullptr; // what `accepts` takes, for errors
};

struct KindRule {
  const char *kind;
  std::vector<FieldRule> fields;
};
} // namespace

static bool isElementwiseOp(const std::string &name) {
  ElementwiseOp op;
  return lookupElementwiseOp(name, op);
}

static const std::vector<KindRule> &kindRules() {
  static const std::vector<KindRule> rules = [] {
    using F = FieldRule;
    // The sliding-window kinds: conv2d and the fused conv2d_bias_relu share
    // their key (only the passes they accept differ); pooling has no output
    // channels, dilation or groups.
    auto windowFields = [](bool conv, const char *passes) {
      std::vector<FieldRule> f = {F{"n", "n", F::Int, nullptr, nullptr, true},
                                  F{"c", "c", F::Int, nullptr, nullptr, true},
                                  F{"h", "h", F::Int, nullptr, nullptr, true},
                                  F{"w", "w", F::Int, nullptr, nullptr, true}};
      if (conv)
        f.push_back(F{"k", "k", F::Int, nullptr, nullptr, true});
      f.insert(f.end(),
               {F{"r", "r", F::Int, nullptr, nullptr, true},
                F{"s", "s", F::Int, nullptr, nullptr, true},
                F{"sh", "stride", F::First, "1", nullptr, true},
                F{"sw", "stride", F::Second, "1", nullptr, true},
                F{"ph", "pad|padding", F::First, "0", nullptr, false},
                F{"pw", "pad|padding", F::Second, "0", nullptr, false}});
      if (conv)
        f.insert(f.end(), {F{"dh", "dilation", F::First, "1", nullptr, true},
                           F{"dw", "dilation", F::Second, "1", nullptr, true},
                           F{"g", "groups|g", F::Int, "1", nullptr, true}});
      f.push_back(F{"pass", "pass", F::Str, "fwd", passes, false});
      return f;
    };
    const std::vector<FieldRule> rowsCols = {
        F{"rows", "rows", F::Int, nullptr, nullptr, true},
        F{"cols", "cols", F::Int, nullptr, nullptr, true}};
    return std::vector<KindRule>{
        {"gemm",
         {F{"b", "batch|b", F::Int, "1", nullptr, true},
          F{"m", "m", F::Int, nullptr, nullptr, true},
          F{"n", "n", F::Int, nullptr, nullptr, true},
          F{"k", "k", F::Int, nullptr, nullptr, true},
          F{"ta", "ta|trans_a|transpose_a", F::Bool, "0", nullptr, false},
          F{"tb", "tb|trans_b|transpose_b", F::Bool, "0", nullptr, false}}},
        {"conv2d", windowFields(true, "fwd|dgrad|wgrad")},
        // Not in docs/perf-db.md's table: the fused cuDNN convolution + bias +
        // ReLU forward, keyed like conv2d.
        {"conv2d_bias_relu", windowFields(true, "fwd")},
        {"elementwise",
         {F{"n", "elements|n", F::Int, nullptr, nullptr, true},
          F{"in", "inputs|in", F::Int, "1", nullptr, false},
          F{"op", "op", F::Str, nullptr, nullptr, false, isElementwiseOp,
            "an element-wise op perf-bench runs (docs/runtime-bench.md)"},
          F{"st", "strided|st", F::SetBool, "0", nullptr, false}}},
        {"reduce", rowsCols},
        {"softmax", rowsCols},
        {"layernorm", rowsCols},
        {"embedding_bag",
         {F{"t", "tables|t", F::Int, "1", nullptr, true},
          F{"rows", "rows", F::Int, nullptr, nullptr, true},
          F{"d", "dim|d", F::Int, nullptr, nullptr, true},
          F{"b", "batch|b", F::Int, nullptr, nullptr, true},
          F{"l", "pooling|l", F::Int, nullptr, nullptr, true},
          F{"pass", "pass", F::Str, "fwd", "fwd|bwd", false}}},
        {"memcpy",
         {F{"bytes", "bytes", F::Int, nullptr, nullptr, true},
          F{"dir", "kind|dir", F::Str, nullptr, "h2d|d2h|d2d", false}}},
        {"transpose", {F{"n", "elements|n", F::Int, nullptr, nullptr, true}}},
        {"concat",
         {F{"n", "elements|n", F::Int, nullptr, nullptr, true},
          F{"st", "strided|st", F::SetBool, "0", nullptr, false}}},
        // Max pooling (perf's key names no mode; CNNs pool by maximum but
        // for the global average, whose traffic is the same).
        {"pooling", windowFields(false, "fwd|bwd")},
        {"batchnorm",
         {F{"n", "elements|n", F::Int, nullptr, nullptr, true},
          F{"c", "c|channels", F::Int, nullptr, nullptr, true},
          F{"pass", "pass", F::Str, "fwd", "fwd|bwd", false}}},
        {"optimizer",
         {F{"n", "elements|n", F::Int, nullptr, nullptr, true},
          F{"op", "op|optimizer", F::Str, nullptr, "sgd|adam", false}}},
        // vLLM's rotary embedding and KV-cache write (cuda/Llm.cu); 0 key
        // heads are the query heads, a rotary size of 0 the head size, a
        // block size of 0 one page per sequence.
        {"rope",
         {F{"t", "tokens|t", F::Int, nullptr, nullptr, true},
          F{"h", "heads|h", F::Int, nullptr, nullptr, true},
          F{"hkv", "kv_heads|hkv", F::Int, "0", nullptr, false},
          F{"d", "head_dim|d", F::Int, nullptr, nullptr, true},
          F{"r", "rotary_dim|r", F::Int, "0", nullptr, false}}},
        {"kv_cache_write",
         {F{"t", "tokens|t", F::Int, nullptr, nullptr, true},
          F{"hkv", "kv_heads|hkv", F::Int, nullptr, nullptr, true},
          F{"d", "head_dim|d", F::Int, nullptr, nullptr, true},
          F{"bs", "block_size|bs", F::Int, "0", nullptr, false}}},
    };
  }();
  return rules;
}

const std::vector<std::string> &bench::benchKinds() {
  static const std::vector<std::string> kinds = [] {
    std::vector<std::string> out;
    for (const KindRule &r : kindRules())
      out.push_back(r.kind);
    return out;
  }();
  return kinds;
}

static const KindRule *findRule(const std::string &kind) {
  for (const KindRule &r : kindRules())
    if (kind == r.kind)
      return &r;
  return nullptr;
}

std::vector<std::string> bench::signatureFieldNames(const std::string &kind) {
  std::vector<std::string> names;
  if (const KindRule *rule = findRule(kind))
    for (const FieldRule &f : rule->fields)
      names.push_back(f.field);
  return names;
}

static std::vector<std::string> splitBar(const char *s) {
  std::vector<std::string> out;
  std::string cur;
  for (const char *p = s; *p; ++p) {
    if (*p == '|') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += *p;
    }
  }
  out.push_back(cur);
  return out;
}

/// Whether a string field may take `value`: the values perf-bench runs.
/// ", expected one of a|b|c" or ", not <what accepts takes>".
static std::string expectedValues(const FieldRule &f) {
  if (f.accepts)
    return std::string(", not ") + f.acceptsWhat;
  return std::string(", expected one of ") + f.allowed;
}

static bool isAllowed(const FieldRule &f, const std::string &value) {
  if (f.accepts)
    return f.accepts(value);
  if (!f.allowed)
    return true;
  std::vector<std::string> ok = splitBar(f.allowed);
  return std::find(ok.begin(), ok.end(), value) != ok.end();
}

/// What is wrong with `number` as the value of a numeric field, or an empty
/// string if nothing is.
static std::string numberProblem(const FieldRule &f, int64_t number) {
  if ((f.shape == FieldRule::Bool || f.shape == FieldRule::SetBool) &&
      number != 0 && number != 1)
    return "must be 0 or 1";
  if (number < 0 || (f.positive && number == 0))
    return std::string("must be ") +
           (f.positive ? "positive" : "non-negative") + ", got " +
           std::to_string(number);
  return "";
}

std::string bench::canonicalDtype(const std::string &name) {
  // The spellings lib/ reads (perf/Support/DTypeNames.h).
  return std::string(perf::canonicalDTypeName(name));
}

bool bench::buildKernel(const std::string &kind, const std::string &dtype,
                        const AttrMap &attrs, bool strict, Kernel &out,
                        std::string &error) {
  const KindRule *rule = findRule(kind);
  if (!rule) {
    error = "unknown kernel kind '" + kind + "'";
    return false;
  }
  Kernel k;
  k.kind = kind;
  std::string type = dtype.empty() ? "f32" : dtype;
  auto dt = attrs.find("dtype");
  if (dt != attrs.end()) {
    if (dt->second.type != AttrValue::Type::String) {
      error = "attribute 'dtype' must be a type name";
      return false;
    }
    type = dt->second.stringValue;
  }
  k.dtype = canonicalDtype(type);
  if (k.dtype.empty()) {
    error = "unknown dtype '" + type + "'";
    return false;
  }

  std::vector<std::string> known = {"dtype"};
  for (const FieldRule &f : rule->fields) {
    std::vector<std::string> names = splitBar(f.attrs);
    known.insert(known.end(), names.begin(), names.end());
    const AttrValue *value = nullptr;
    std::string used;
    for (const std::string &name : names) {
      auto it = attrs.find(name);
      if (it != attrs.end()) {
        value = &it->second;
        used = name;
        break;
      }
    }
    if (!value) {
      if (!f.fallback) {
        error = kind + ": missing attribute '" + names.front() + "'";
        return false;
      }
      if (f.shape != FieldRule::SetBool)
        k.fields.emplace_back(f.field, f.fallback);
      continue;
    }
    std::string text;
    int64_t number = 0;
    bool numeric = f.shape != FieldRule::Str;
    switch (f.shape) {
    case FieldRule::Int:
    case FieldRule::Bool:
    case FieldRule::SetBool:
      if (value->type != AttrValue::Type::Int) {
        error = kind + ": attribute '" + used + "' must be an integer";
        return false;
      }
      number = value->intValue;
      break;
    case FieldRule::First:
    case FieldRule::Second:
      if (value->type == AttrValue::Type::Int) {
        number = value->intValue; // one value for both dimensions
      } else if (value->type == AttrValue::Type::IntArray &&
                 value->arrayValue.size() == 2) {
        number = value->arrayValue[f.shape == FieldRule::First ? 0 : 1];
      } else {
        error = kind + ": attribute '" + used +
                "' must be an integer or a pair of integers";
        return false;
      }
      break;
    case FieldRule::Str: {
      if (value->type != AttrValue::Type::String) {
        error = kind + ": attribute '" + used + "' must be a string";
        return false;
      }
      text = value->stringValue;
      if (!isAllowed(f, text)) {
        error = kind + ": attribute '" + used + "' is '" + text + "'" +
                expectedValues(f);
        return false;
      }
      break;
    }
    }
    if (numeric) {
      std::string problem = numberProblem(f, number);
      if (!problem.empty()) {
        error = kind + ": attribute '" + used + "' " + problem;
        return false;
      }
      text = std::to_string(number);
      if (f.shape == FieldRule::SetBool && number == 0)
        continue;
    }
    k.fields.emplace_back(f.field, text);
  }
  if (strict) {
    for (const auto &a : attrs)
      if (std::find(known.begin(), known.end(), a.first) == known.end()) {
        error = kind + ": unknown attribute '" + a.first + "'";
        return false;
      }
  }
  out = std::move(k);
  return true;
}

/// Reads an integer only in the spelling std::to_string gives it, so that the
/// rebuilt signature is the string the key's writer produced.
static bool parseCanonicalInt(const std::string &text, int64_t &out) {
  if (text.empty() || text.size() > 20)
    return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || std::to_string(v) != text)
    return false;
  out = v;
  return true;
}

bool bench::parseKernelKey(const std::string &kind, const std::string &dtype,
                           const std::string &signature, Kernel &out,
                           std::string &error, bool *unsupported) {
  auto fail = [&](std::string why, bool cannotMeasure) {
    error = std::move(why);
    if (unsupported)
      *unsupported = cannotMeasure;
    return false;
  };
  // Kinds and dtypes of docs/perf-db.md that perf-bench has no benchmark
  // for are valid keys, so they are unsupported, not malformed.
  const KindRule *rule = findRule(kind);
  if (!rule)
    return fail("kind '" + kind + "' is not benchmarked", true);
  if (dtype.empty())
    return fail("empty dtype", false);
  std::string canonical = canonicalDtype(dtype);
  if (canonical.empty())
    return fail("dtype '" + dtype + "' is not benchmarked", true);
  if (canonical != dtype)
    return fail("dtype '" + dtype + "' is not canonical, expected '" +
                    canonical + "'",
                false);

  std::vector<std::pair<std::string, std::string>> fields;
  for (size_t pos = 0;;) {
    size_t space = signature.find(' ', pos);
    std::string token = signature.substr(
        pos, space == std::string::npos ? std::string::npos : space - pos);
    size_t eq = token.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail("signature is not 'name=value' fields joined by single "
                  "spaces",
                  false);
    fields.emplace_back(token.substr(0, eq), token.substr(eq + 1));
    if (space == std::string::npos)
      break;
    pos = space + 1;
  }
  // The fields in the rule's order; a SetBool field only when set.
  std::vector<const FieldRule *> matched;
  std::string expected, found;
  for (const FieldRule &f : rule->fields) {
    bool optional = f.shape == FieldRule::SetBool;
    expected += std::string(expected.empty() ? "" : " ") +
                (optional ? "[" : "") + f.field + (optional ? "]" : "");
    if (matched.size() < fields.size() &&
        fields[matched.size()].first == f.field)
      matched.push_back(&f);
    else if (!optional)
      matched.push_back(nullptr);
  }
  for (const auto &f : fields)
    found += (found.empty() ? "" : " ") + f.first;
  if (matched.size() != fields.size() ||
      std::find(matched.begin(), matched.end(), nullptr) != matched.end())
    return fail("signature fields are '" + found + "', " + kind + " expects '" +
                    expected + "'",
                false);

  for (size_t i = 0; i < fields.size(); ++i) {
    const FieldRule &f = *matched[i];
    const std::string &value = fields[i].second;
    if (f.shape == FieldRule::SetBool) {
      if (value != "1")
        return fail("signature field '" + fields[i].first +
                        "' is written only as 1",
                    false);
      // perf-bench's kernels read their operands contiguous.
      return fail("strided operands (st=1) are not benchmarked", true);
    }
    std::string where = "signature field '" + fields[i].first + "'";
    if (value.empty())
      return fail(where + " is empty", false);
    if (f.shape == FieldRule::Str) {
      if (!isAllowed(f, value))
        return fail(where + " is '" + value + "'" + expectedValues(f), true);
      continue;
    }
    int64_t number = 0;
    if (!parseCanonicalInt(value, number))
      return fail(where + " is not an integer", false);
    std::string problem = numberProblem(f, number);
    if (!problem.empty())
      return fail(where + " " + problem, false);
  }
  out.kind = kind;
  out.dtype = dtype;
  out.fields = std::move(fields);
  return true;
}
