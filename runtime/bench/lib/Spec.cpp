//===- Spec.cpp - Sweep specs ---------------------------------------------===//

#include "bench/Spec.h"
#include "bench/Json.h"

#include <fstream>
#include <sstream>

using namespace bench;

bool bench::readFile(const std::string &path, std::string &out,
                     std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read '" + path + "'";
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

size_t bench::mergeUnique(std::vector<Kernel> &into,
                          const std::vector<Kernel> &add,
                          const std::set<std::string> &skip) {
  std::set<std::string> seen;
  for (const Kernel &k : into)
    seen.insert(k.key());
  size_t added = 0;
  for (const Kernel &k : add) {
    std::string key = k.key();
    if (skip.count(key) || !seen.insert(key).second)
      continue;
    into.push_back(k);
    ++added;
  }
  return added;
}

/// Attributes whose value is itself a list: a list of numbers is one value,
/// a list of lists a sweep.
static bool isPairAttr(const std::string &key) {
  return key == "stride" || key == "pad" || key == "padding" ||
         key == "dilation";
}

static constexpr size_t kMaxKernels = 1000000;

/// The values one axis of a sweep takes.
static bool axisValues(const std::string &key, const JsonValue &v,
                       std::vector<AttrValue> &out, std::string &error) {
  auto scalar = [&](const JsonValue &e, AttrValue &a) -> bool {
    if (e.isString()) {
      a = AttrValue::ofString(e.asString());
      return true;
    }
    if (e.isBool()) {
      a = AttrValue::ofInt(e.asBool() ? 1 : 0);
      return true;
    }
    if (e.isInteger()) {
      a = AttrValue::ofInt(e.asInteger());
      return true;
    }
    if (isPairAttr(key) && e.isArray()) {
      std::vector<int64_t> pair;
      for (const JsonValue &x : e.elements()) {
        if (!x.isInteger()) {
          error = "'" + key + "' must hold integers";
          return false;
        }
        pair.push_back(x.asInteger());
      }
      a = AttrValue::ofArray(pair);
      return true;
    }
    error = "'" + key + "' must be an integer, a string, a list or a range";
    return false;
  };

  if (v.isObject()) {
    const JsonValue *from = v.get("from"), *to = v.get("to"),
                    *mul = v.get("mul"), *step = v.get("step");
    for (const auto &m : v.members())
      if (m.first != "from" && m.first != "to" && m.first != "mul" &&
          m.first != "step") {
        error = "'" + key + "': unknown range key '" + m.first + "'";
        return false;
      }
    if (!from || !to || !from->isInteger() || !to->isInteger() ||
        (!mul == !step)) {
      error = "'" + key +
              "': a range needs integer 'from', 'to' and one of 'mul', 'step'";
      return false;
    }
    int64_t lo = from->asInteger(), hi = to->asInteger();
    if (mul) {
      if (!mul->isInteger() || mul->asInteger() < 2 || lo < 1) {
        error = "'" + key + "': 'mul' must be an integer >= 2 and 'from' >= 1";
        return false;
      }
      for (int64_t x = lo; x <= hi; x *= mul->asInteger())
        out.push_back(AttrValue::ofInt(x));
    } else {
      if (!step->isInteger() || step->asInteger() < 1) {
        error = "'" + key + "': 'step' must be a positive integer";
        return false;
      }
      for (int64_t x = lo; x <= hi; x += step->asInteger()) {
        out.push_back(AttrValue::ofInt(x));
        if (out.size() > kMaxKernels) {
          error = "'" + key + "': range too long";
          return false;
        }
      }
    }
    if (out.empty()) {
      error = "'" + key + "': empty range";
      return false;
    }
    return true;
  }
  if (v.isArray()) {
    bool onePair = isPairAttr(key) && !v.elements().empty() &&
                   v.elements().front().isNumber();
    if (onePair) {
      AttrValue a;
      if (!scalar(v, a))
        return false;
      out.push_back(a);
      return true;
    }
    if (v.elements().empty()) {
      error = "'" + key + "': empty list";
      return false;
    }
    for (const JsonValue &e : v.elements()) {
      AttrValue a;
      if (!scalar(e, a))
        return false;
      out.push_back(a);
    }
    return true;
  }
  AttrValue a;
  if (!scalar(v, a))
    return false;
  out.push_back(a);
  return true;
}

bool bench::parseSweepSpec(const std::string &text, const std::string &name,
                           SweepSpec &out, std::string &error) {
  JsonValue root;
  std::string jsonError;
  if (!parseJson(text, root, jsonError)) {
    error = name + ": " + jsonError;
    return false;
  }
  if (!root.isObject()) {
    error = name + ": expected a JSON object";
    return false;
  }
  std::vector<AttrValue> defaultDtypes;
  const JsonValue *kernels = nullptr;
  for (const auto &m : root.members()) {
    const std::string &key = m.first;
    if (key == "kernels") {
      kernels = &m.second;
    } else if (key == "dtype") {
      if (!axisValues(key, m.second, defaultDtypes, jsonError)) {
        error = name + ": " + jsonError;
        return false;
      }
    } else if (key == "warmup" || key == "reps") {
      if (!m.second.isInteger() || m.second.asInteger() < 1) {
        error = name + ": '" + key + "' must be a positive integer";
        return false;
      }
      (key == "warmup" ? out.warmup : out.reps) =
          static_cast<int>(m.second.asInteger());
    } else if (key != "description") {
      error = name + ": unknown key '" + key + "'";
      return false;
    }
  }
  if (!kernels || !kernels->isArray()) {
    error = name + ": missing list 'kernels'";
    return false;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < kernels->elements().size(); ++i) {
    const JsonValue &entry = kernels->elements()[i];
    std::string where = name + ": kernels[" + std::to_string(i) + "]: ";
    if (!entry.isObject()) {
      error = where + "expected an object";
      return false;
    }
    const JsonValue *kind = entry.get("kind");
    if (!kind || !kind->isString()) {
      error = where + "missing string 'kind'";
      return false;
    }
    std::vector<std::string> axisNames;
    std::vector<std::vector<AttrValue>> axes;
    for (const auto &m : entry.members()) {
      if (m.first == "kind")
        continue;
      std::vector<AttrValue> values;
      if (!axisValues(m.first, m.second, values, jsonError)) {
        error = where + jsonError;
        return false;
      }
      axisNames.push_back(m.first);
      axes.push_back(std::move(values));
    }
    if (!entry.get("dtype") && !defaultDtypes.empty()) {
      axisNames.push_back("dtype");
      axes.push_back(defaultDtypes);
    }
    size_t total = 1;
    for (const auto &a : axes) {
      total *= a.size();
      if (total > kMaxKernels) {
        error = where + "sweep expands to more than 1000000 kernels";
        return false;
      }
    }
    // Odometer over the axes, first axis outermost.
    std::vector<size_t> index(axes.size(), 0);
    for (size_t n = 0; n < total; ++n) {
      AttrMap attrs;
      for (size_t a = 0; a < axes.size(); ++a)
        attrs[axisNames[a]] = axes[a][index[a]];
      Kernel k;
      std::string kernelError;
      if (!buildKernel(kind->asString(), "f32", attrs, /*strict=*/true, k,
                       kernelError)) {
        error = where + kernelError;
        return false;
      }
      if (seen.insert(k.key()).second)
        out.kernels.push_back(std::move(k));
      for (size_t a = axes.size(); a-- > 0;) {
        if (++index[a] < axes[a].size())
          break;
        index[a] = 0;
      }
    }
  }
  return true;
}

bool bench::loadSweepSpec(const std::string &path, SweepSpec &out,
                          std::string &error) {
  std::string text;
  if (!readFile(path, text, error))
    return false;
  return parseSweepSpec(text, path, out, error);
}
