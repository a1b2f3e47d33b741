//===- Spec.cpp - Sweep specs and kernel lists ----------------------------===//

#include "bench/Spec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

using namespace bench;
using Json = nlohmann::ordered_json;

/// "line L, column C: " of the character at byte offset `pos`.
static std::string where(const std::string &text, size_t pos) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column) +
         ": ";
}

namespace {
/// What the parser callback refuses: nesting past kMaxJsonDepth, before the
/// document grows further, and a key repeated in one object, which the
/// parser would otherwise merge silently.
struct Refused {
  std::string what;
};
} // namespace

bool bench::parseJsonText(const std::string &text, Json &out,
                          std::string &error) {
  std::vector<std::set<std::string>> keys; // per open object
  auto check = [&](int depth, Json::parse_event_t event, Json &parsed) {
    using Event = Json::parse_event_t;
    if (depth > static_cast<int>(kMaxJsonDepth))
      throw Refused{"nesting deeper than " + std::to_string(kMaxJsonDepth)};
    if (event == Event::object_start) {
      keys.emplace_back();
    } else if (event == Event::object_end) {
      keys.pop_back();
    } else if (event == Event::key && !keys.empty() &&
               !keys.back().insert(parsed.get<std::string>()).second) {
      throw Refused{"duplicate key '" + parsed.get<std::string>() + "'"};
    }
    return true;
  };
  try {
    out = Json::parse(text, check);
  } catch (const Refused &r) {
    error = r.what;
    return false;
  } catch (const Json::parse_error &e) {
    // e.byte counts the characters read, the offending one last. what() is
    // "[json.exception.parse_error.N] parse error at ...: message".
    std::string what = e.what();
    size_t colon = what.find(": ");
    error = where(text, e.byte ? e.byte - 1 : 0) +
            (colon == std::string::npos ? what : what.substr(colon + 2));
    return false;
  } catch (const Json::exception &e) {
    error = e.what();
    return false;
  }
  return true;
}

/// The member `key` of an object, or null.
static const Json *member(const Json &object, const char *key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

/// A number with no fractional part that fits an int64: JSON does not tell
/// 2 from 2.0.
static bool asInteger(const Json &v, int64_t &out) {
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      return false;
    out = static_cast<int64_t>(v.get<uint64_t>());
    return true;
  }
  if (v.is_number_integer()) {
    out = v.get<int64_t>();
    return true;
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::floor(d) != d || std::fabs(d) >= 9.2e18)
      return false;
    out = static_cast<int64_t>(d);
    return true;
  }
  return false;
}

/// The database key of a kernel entry: its string "kind", "dtype" and
/// "signature" (a kernel list's or a launch list's); `missing` names the one
/// absent.
static bool readKernelKey(const Json &entry, std::string (&fields)[3],
                          std::string &missing) {
  const char *names[3] = {"kind", "dtype", "signature"};
  for (int f = 0; f < 3; ++f) {
    const Json *v = member(entry, names[f]);
    if (!v || !v->is_string()) {
      missing = names[f];
      return false;
    }
    fields[f] = v->get<std::string>();
  }
  return true;
}

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
static bool axisValues(const std::string &key, const Json &v,
                       std::vector<AttrValue> &out, std::string &error) {
  auto scalar = [&](const Json &e, AttrValue &a) -> bool {
    int64_t number = 0;
    if (e.is_string()) {
      a = AttrValue::ofString(e.get<std::string>());
      return true;
    }
    if (e.is_boolean()) {
      a = AttrValue::ofInt(e.get<bool>() ? 1 : 0);
      return true;
    }
    if (asInteger(e, number)) {
      a = AttrValue::ofInt(number);
      return true;
    }
    if (isPairAttr(key) && e.is_array()) {
      std::vector<int64_t> pair;
      for (const Json &x : e) {
        if (!asInteger(x, number)) {
          error = "'" + key + "' must hold integers";
          return false;
        }
        pair.push_back(number);
      }
      a = AttrValue::ofArray(pair);
      return true;
    }
    error = "'" + key + "' must be an integer, a string, a list or a range";
    return false;
  };

  if (v.is_object()) {
    const Json *from = member(v, "from"), *to = member(v, "to"),
               *mul = member(v, "mul"), *step = member(v, "step");
    for (const auto &m : v.items())
      if (m.key() != "from" && m.key() != "to" && m.key() != "mul" &&
          m.key() != "step") {
        error = "'" + key + "': unknown range key '" + m.key() + "'";
        return false;
      }
    int64_t lo = 0, hi = 0, by = 0;
    if (!from || !to || !asInteger(*from, lo) || !asInteger(*to, hi) ||
        (!mul == !step)) {
      error = "'" + key +
              "': a range needs integer 'from', 'to' and one of 'mul', 'step'";
      return false;
    }
    if (mul) {
      if (!asInteger(*mul, by) || by < 2 || lo < 1) {
        error = "'" + key + "': 'mul' must be an integer >= 2 and 'from' >= 1";
        return false;
      }
      for (int64_t x = lo; x <= hi; x *= by) {
        out.push_back(AttrValue::ofInt(x));
        if (x > hi / by)
          break; // the next value would pass `to` (or overflow)
      }
    } else {
      if (!asInteger(*step, by) || by < 1) {
        error = "'" + key + "': 'step' must be a positive integer";
        return false;
      }
      for (int64_t x = lo; x <= hi; x += by) {
        out.push_back(AttrValue::ofInt(x));
        if (out.size() > kMaxKernels) {
          error = "'" + key + "': range too long";
          return false;
        }
        // hi >= x, so the unsigned difference is exact.
        if (static_cast<uint64_t>(hi) - static_cast<uint64_t>(x) <
            static_cast<uint64_t>(by))
          break; // the next value would pass `to` (or overflow)
      }
    }
    if (out.empty()) {
      error = "'" + key + "': empty range";
      return false;
    }
    return true;
  }
  if (v.is_array()) {
    bool onePair = isPairAttr(key) && !v.empty() && v.front().is_number();
    if (onePair) {
      AttrValue a;
      if (!scalar(v, a))
        return false;
      out.push_back(a);
      return true;
    }
    if (v.empty()) {
      error = "'" + key + "': empty list";
      return false;
    }
    for (const Json &e : v) {
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

static bool expandSweepSpec(const Json &root, const std::string &name,
                            SweepSpec &out, std::string &error) {
  if (!root.is_object()) {
    error = name + ": expected a JSON object";
    return false;
  }
  std::string axisError;
  std::vector<AttrValue> defaultDtypes;
  const Json *kernels = nullptr;
  for (const auto &m : root.items()) {
    const std::string &key = m.key();
    if (key == "kernels") {
      kernels = &m.value();
    } else if (key == "dtype") {
      if (!axisValues(key, m.value(), defaultDtypes, axisError)) {
        error = name + ": " + axisError;
        return false;
      }
    } else if (key == "warmup" || key == "reps") {
      int64_t n = 0;
      if (!asInteger(m.value(), n) || n < 1 || n > 1000000) {
        error = name + ": '" + key + "' must be an integer in [1, 1000000]";
        return false;
      }
      (key == "warmup" ? out.warmup : out.reps) = static_cast<int>(n);
    } else if (key != "description") {
      error = name + ": unknown key '" + key + "'";
      return false;
    }
  }
  if (!kernels || !kernels->is_array()) {
    error = name + ": missing list 'kernels'";
    return false;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < kernels->size(); ++i) {
    const Json &entry = (*kernels)[i];
    std::string where = name + ": kernels[" + std::to_string(i) + "]: ";
    if (!entry.is_object()) {
      error = where + "expected an object";
      return false;
    }
    const Json *kind = member(entry, "kind");
    if (!kind || !kind->is_string()) {
      error = where + "missing string 'kind'";
      return false;
    }
    std::vector<std::string> axisNames;
    std::vector<std::vector<AttrValue>> axes;
    for (const auto &m : entry.items()) {
      if (m.key() == "kind")
        continue;
      std::vector<AttrValue> values;
      if (!axisValues(m.key(), m.value(), values, axisError)) {
        error = where + axisError;
        return false;
      }
      axisNames.push_back(m.key());
      axes.push_back(std::move(values));
    }
    if (!member(entry, "dtype") && !defaultDtypes.empty()) {
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
      if (!buildKernel(kind->get<std::string>(), "f32", attrs,
                       /*strict=*/true, k, kernelError)) {
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

/// Parses `text` and hands the document to `read`; errors are prefixed with
/// `name`.
template <typename ReadFn>
static bool readJsonDocument(const std::string &text, const std::string &name,
                             std::string &error, ReadFn read) {
  Json root;
  std::string jsonError;
  if (!parseJsonText(text, root, jsonError)) {
    error = name + ": " + jsonError;
    return false;
  }
  // The readers check every value's type before they use it; this only
  // keeps a library exception from reaching the caller should one slip
  // through.
  try {
    return read(root);
  } catch (const Json::exception &e) {
    error = name + ": " + e.what();
    return false;
  }
}

bool bench::parseSweepSpec(const std::string &text, const std::string &name,
                           SweepSpec &out, std::string &error) {
  return readJsonDocument(text, name, error, [&](const Json &root) {
    return expandSweepSpec(root, name, out, error);
  });
}

bool bench::loadSweepSpec(const std::string &path, SweepSpec &out,
                          std::string &error) {
  std::string text;
  if (!readFile(path, text, error))
    return false;
  return parseSweepSpec(text, path, out, error);
}

static bool readKernelList(const Json &root, const std::string &name,
                           KernelList &out, std::string &error) {
  if (!root.is_object()) {
    error = name + ": expected a JSON object";
    return false;
  }
  const Json *schema = member(root, "schema");
  if (!schema || !schema->is_string()) {
    error = name + ": not a kernel list (no \"schema\": \"" +
            std::string(kKernelListSchema) + "\")";
    return false;
  }
  if (schema->get<std::string>() != kKernelListSchema) {
    error = name + ": schema is '" + schema->get<std::string>() +
            "', perf-bench reads '" + kKernelListSchema + "'";
    return false;
  }
  const Json *kernels = member(root, "kernels");
  if (!kernels || !kernels->is_array()) {
    error = name + ": missing list 'kernels'";
    return false;
  }
  std::set<std::string> seen;
  for (const Kernel &k : out.kernels)
    seen.insert(k.key());
  for (size_t i = 0; i < kernels->size(); ++i) {
    const Json &entry = (*kernels)[i];
    std::string where = name + ": kernels[" + std::to_string(i) + "]: ";
    if (!entry.is_object()) {
      error = where + "expected an object";
      return false;
    }
    std::string fields[3], missing;
    if (!readKernelKey(entry, fields, missing)) {
      error = where + "missing string '" + missing + "'";
      return false;
    }
    const std::string &kind = fields[0];
    // The count and the device are informational: the count feeds the
    // summary line, the device key comes from the command line.
    int64_t count = 1;
    const Json *countValue = member(entry, "count");
    if (countValue && (!asInteger(*countValue, count) || count < 1)) {
      error = where + "'count' must be a positive integer";
      return false;
    }
    const Json *device = member(entry, "device");
    if (device && !device->is_string()) {
      error = where + "'device' must be a string";
      return false;
    }
    out.kernelOps += static_cast<uint64_t>(count);
    Kernel k;
    std::string why;
    bool unsupported = false;
    if (!parseKernelKey(kind, fields[1], fields[2], k, why, &unsupported)) {
      if (!unsupported) {
        error = where + why;
        return false;
      }
      const std::vector<std::string> &kinds = benchKinds();
      bool known = std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
      out.unsupported[known ? kind + ": " + why : why] +=
          static_cast<uint64_t>(count);
      continue;
    }
    if (seen.insert(k.key()).second)
      out.kernels.push_back(std::move(k));
  }
  return true;
}

bool bench::parseKernelList(const std::string &text, const std::string &name,
                            KernelList &out, std::string &error) {
  return readJsonDocument(text, name, error, [&](const Json &root) {
    return readKernelList(root, name, out, error);
  });
}

bool bench::loadKernelList(const std::string &path, KernelList &out,
                           std::string &error) {
  std::string text;
  if (!readFile(path, text, error))
    return false;
  return parseKernelList(text, path, out, error);
}

/// One graph of a launch list; `where` prefixes its errors.
static bool readGraphPlan(const Json &graph, const std::string &where,
                          GraphPlan &plan, std::string &error) {
  if (!graph.is_object()) {
    error = where + ": expected an object";
    return false;
  }
  const Json *name = member(graph, "name"), *target = member(graph, "device"),
             *predicted = member(graph, "predicted_us"),
             *launches = member(graph, "launches");
  if (!name || !name->is_string() || !target || !target->is_string() ||
      !predicted || !predicted->is_number() || !launches ||
      !launches->is_array()) {
    error = where + ": needs string 'name' and 'device', number "
                    "'predicted_us' and list 'launches'";
    return false;
  }
  plan.name = name->get<std::string>();
  plan.target = target->get<std::string>();
  plan.predictedUs = predicted->get<double>();
  std::map<std::string, size_t> kernelIndex;
  plan.waitedFor.assign(launches->size(), false);
  for (size_t i = 0; i < launches->size(); ++i) {
    const Json &entry = (*launches)[i];
    std::string at = where + ".launches[" + std::to_string(i) + "]: ";
    if (!entry.is_object()) {
      error = at + "expected an object";
      return false;
    }
    PlannedLaunch launch;
    const Json *type = member(entry, "type"), *device = member(entry, "device"),
               *stream = member(entry, "stream");
    std::string typeName =
        type && type->is_string() ? type->get<std::string>() : "";
    if (typeName == "kernel")
      launch.type = PlannedLaunch::Type::Kernel;
    else if (typeName == "collective")
      launch.type = PlannedLaunch::Type::Collective;
    else if (typeName == "sync")
      launch.type = PlannedLaunch::Type::Sync;
    else {
      error = at + "'type' must be \"kernel\", \"collective\" or \"sync\"";
      return false;
    }
    if (!device || !asInteger(*device, launch.device) || launch.device < 0 ||
        !stream || !asInteger(*stream, launch.stream) || launch.stream < -1 ||
        (launch.type != PlannedLaunch::Type::Sync && launch.stream < 0)) {
      error = at + "needs integer 'device' (0 or more) and 'stream' (0 or "
                   "more; -1 for a sync of every stream)";
      return false;
    }
    if (const Json *after = member(entry, "after")) {
      if (!after->is_array()) {
        error = at + "'after' must be a list of launch numbers";
        return false;
      }
      for (const Json &a : *after) {
        int64_t before = -1;
        if (!asInteger(a, before) || before < 0 ||
            static_cast<size_t>(before) >= i) {
          error = at + "'after' must list earlier launches (0 to " +
                  std::to_string(i) + " exclusive)";
          return false;
        }
        launch.after.push_back(static_cast<size_t>(before));
        plan.waitedFor[static_cast<size_t>(before)] = true;
      }
    }
    if (launch.type == PlannedLaunch::Type::Kernel) {
      std::string fields[3], missing;
      if (!readKernelKey(entry, fields, missing)) {
        error = at + "a kernel needs string '" + missing + "'";
        return false;
      }
      Kernel k;
      std::string why;
      bool unsupported = false;
      if (launch.device != 0) {
        ++plan.notReplayed["device " + std::to_string(launch.device) +
                           " (one GPU replays device 0)"];
      } else if (!parseKernelKey(fields[0], fields[1], fields[2], k, why,
                                 &unsupported)) {
        if (!unsupported) {
          error = at + why;
          return false;
        }
        ++plan.notReplayed[fields[0] + ": " + why];
      } else {
        auto [it, fresh] =
            kernelIndex.try_emplace(k.key(), plan.kernels.size());
        if (fresh)
          plan.kernels.push_back(std::move(k));
        launch.kernel = static_cast<int64_t>(it->second);
      }
    } else if (launch.type == PlannedLaunch::Type::Collective) {
      ++plan.notReplayed["collective (one GPU runs no NCCL)"];
    } else if (launch.device != 0) {
      ++plan.notReplayed["device " + std::to_string(launch.device) +
                         " (one GPU replays device 0)"];
    }
    plan.launches.push_back(std::move(launch));
  }
  return true;
}

static bool readLaunchList(const Json &root, const std::string &name,
                           std::vector<GraphPlan> &out, std::string &error) {
  const Json *schema = root.is_object() ? member(root, "schema") : nullptr;
  if (!schema || !schema->is_string() ||
      schema->get<std::string>() != kLaunchListSchema) {
    error = name + ": not a launch list (\"schema\": \"" +
            std::string(kLaunchListSchema) +
            "\", written by perf-opt --estimate=launch-list=FILE)";
    return false;
  }
  const Json *graphs = member(root, "graphs");
  if (!graphs || !graphs->is_array()) {
    error = name + ": missing list 'graphs'";
    return false;
  }
  for (size_t g = 0; g < graphs->size(); ++g) {
    GraphPlan plan;
    if (!readGraphPlan((*graphs)[g],
                       name + ": graphs[" + std::to_string(g) + "]", plan,
                       error))
      return false;
    out.push_back(std::move(plan));
  }
  return true;
}

bool bench::parseLaunchList(const std::string &text, const std::string &name,
                            std::vector<GraphPlan> &out, std::string &error) {
  return readJsonDocument(text, name, error, [&](const Json &root) {
    return readLaunchList(root, name, out, error);
  });
}

bool bench::loadLaunchList(const std::string &path, std::vector<GraphPlan> &out,
                           std::string &error) {
  std::string text;
  if (!readFile(path, text, error))
    return false;
  return parseLaunchList(text, path, out, error);
}
