//===- HostOverheadTable.cpp - The T1-T5 host overhead table --------------===//

#include "perf/Support/HostOverheadTable.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <cmath>
#include <cstdlib>

using namespace perf;
using llvm::json::Object;
using llvm::json::Value;

static constexpr const char *kTypeKeys[kNumOverheads] = {"t1", "t2", "t3", "t4",
                                                         "t5"};

double HostOverheadTable::builtin(Overhead type) {
  static constexpr double kFigures[kNumOverheads] = {8.0, 10.0, 5.0, 10.0, 5.0};
  return kFigures[static_cast<unsigned>(type)];
}

double HostOverheadTable::get(llvm::StringRef op, Overhead type) const {
  unsigned t = static_cast<unsigned>(type);
  auto it = ops.find(op);
  if (it != ops.end() && it->second[t])
    return it->second[t]->mean;
  if (defaults[t])
    return defaults[t]->mean;
  return builtin(type);
}

double HostOverheadTable::entryT1(llvm::StringRef region,
                                  llvm::StringRef op) const {
  auto it = regions.find(region);
  return it != regions.end() ? it->second.mean : get(op, Overhead::T1);
}

double HostOverheadTable::runtimeCall(llvm::StringRef function) const {
  auto it = runtime.find(function);
  if (it != runtime.end())
    return it->second.mean;
  unsigned t4 = static_cast<unsigned>(Overhead::T4);
  return defaults[t4] ? defaults[t4]->mean : builtin(Overhead::T4);
}

double HostOverheadTable::syncCall(llvm::StringRef function) const {
  auto it = runtime.find(function);
  return it != runtime.end() ? it->second.mean : 0;
}

static Value statsToJson(const OverheadStats &stats) {
  // Three decimals: sub-nanosecond digits are noise.
  auto round3 = [](double x) { return std::round(x * 1000) / 1000; };
  return Object{{"mean", round3(stats.mean)},
                {"std", round3(stats.std)},
                {"count", static_cast<int64_t>(stats.count)}};
}

Value HostOverheadTable::toJson() const {
  auto entryToJson = [](const Entry &entry) {
    Object object;
    for (unsigned t = 0; t < kNumOverheads; ++t)
      if (entry[t])
        object[kTypeKeys[t]] = statsToJson(*entry[t]);
    return object;
  };
  Object runtimeObject, opsObject, regionsObject;
  for (const auto &entry : runtime)
    runtimeObject[entry.getKey()] = statsToJson(entry.getValue());
  for (const auto &entry : regions)
    regionsObject[entry.getKey()] =
        Object{{"t1", statsToJson(entry.getValue())}};
  for (const auto &entry : ops)
    opsObject[entry.getKey()] = entryToJson(entry.getValue());
  Object root{{"schema", "perf.overhead_table/1"},
              {"version", 1},
              {"source", source},
              {"default", entryToJson(defaults)},
              {"runtime", std::move(runtimeObject)},
              {"ops", std::move(opsObject)}};
  if (!regions.empty())
    root["regions"] = std::move(regionsObject);
  if (iterationTail)
    root["iteration_tail"] = statsToJson(*iterationTail);
  if (launchQueueDepth > 0)
    root["launch_queue_depth"] = int64_t(launchQueueDepth);
  if (layerUs > 0)
    root["layer_us"] = layerUs;
  if (extraction)
    root["extraction"] =
        Object{{"profiler_cpu_us", extraction->profilerCpuUs},
               {"profiler_runtime_us", extraction->profilerRuntimeUs},
               {"outliers_removed", extraction->outliersRemoved}};
  return root;
}

/// A figure: a number (the mean) or {"mean": m, "std": s, "count": n}; a
/// duration, so finite and non-negative.
static llvm::Expected<OverheadStats> readStats(const Value &value,
                                               const llvm::Twine &where) {
  OverheadStats stats;
  std::optional<double> mean = value.getAsNumber();
  stats.count = 1;
  if (const Object *o = value.getAsObject()) {
    mean = o->getNumber("mean");
    stats.std = o->getNumber("std").value_or(0);
    std::optional<int64_t> count = o->getInteger("count");
    if (count && (*count < 0 || *count > UINT32_MAX))
      return llvm::createStringError("overhead table: " + where +
                                     ".count must be a sample count");
    stats.count = count.value_or(1);
  }
  if (!mean || !isFiniteAtLeast(*mean, 0) || !isFiniteAtLeast(stats.std, 0))
    return llvm::createStringError(
        "overhead table: " + where +
        " must be a finite non-negative number of microseconds or an object "
        "with one as \"mean\"");
  stats.mean = *mean;
  return stats;
}

/// The figures of `object` named t1..t5.
static llvm::Expected<HostOverheadTable::Entry>
readEntry(const Object &object, const llvm::Twine &where) {
  HostOverheadTable::Entry entry;
  for (unsigned t = 0; t < kNumOverheads; ++t)
    if (const Value *v = object.get(kTypeKeys[t])) {
      auto stats = readStats(*v, where + "." + kTypeKeys[t]);
      if (!stats)
        return stats.takeError();
      entry[t] = *stats;
    }
  return entry;
}

llvm::Expected<HostOverheadTable>
HostOverheadTable::parse(const llvm::json::Value &value) {
  HostOverheadTable table;
  const Object *root = value.getAsObject();
  if (!root)
    return llvm::createStringError("overhead table: expected a JSON object");
  if (const Value *version = root->get("version"))
    if (version->getAsInteger() != 1)
      return llvm::createStringError(
          "overhead table: unsupported version (expected 1)");
  if (std::optional<llvm::StringRef> schema = root->getString("schema"))
    if (*schema != "perf.overhead_table/1")
      return llvm::createStringError("overhead table: unsupported schema '" +
                                     *schema +
                                     "' (expected perf.overhead_table/1)");
  table.source = root->getString("source").value_or("").str();
  if (const Value *depth = root->get("launch_queue_depth")) {
    std::optional<int64_t> n = depth->getAsInteger();
    if (!n || *n < 0 || *n > UINT32_MAX)
      return llvm::createStringError(
          "overhead table: launch_queue_depth must be a non-negative number "
          "of device events (0: no limit)");
    table.launchQueueDepth = static_cast<unsigned>(*n);
  }
  if (const Value *layer = root->get("layer_us")) {
    std::optional<double> us = layer->getAsNumber();
    if (!us || !isFiniteAtLeast(*us, 0))
      return llvm::createStringError(
          "overhead table: layer_us must be a finite non-negative number of "
          "microseconds");
    table.layerUs = *us;
  }
  if (const Value *how = root->get("extraction")) {
    std::optional<double> cpu, runtime;
    std::optional<bool> removed;
    if (const Object *o = how->getAsObject()) {
      cpu = o->getNumber("profiler_cpu_us");
      runtime = o->getNumber("profiler_runtime_us");
      removed = o->getBoolean("outliers_removed");
    }
    if (!cpu || !runtime || !removed || !isFiniteAtLeast(*cpu, 0) ||
        !isFiniteAtLeast(*runtime, 0))
      return llvm::createStringError(
          "overhead table: extraction must be an object with "
          "profiler_cpu_us and profiler_runtime_us (non-negative "
          "microseconds) and outliers_removed (true or false)");
    table.extraction = Extraction{*cpu, *runtime, *removed};
  }
  if (const Value *tail = root->get("iteration_tail")) {
    auto stats = readStats(*tail, "iteration_tail");
    if (!stats)
      return stats.takeError();
    table.iterationTail = *stats;
  }
  auto object = [&](llvm::StringRef key) -> llvm::Expected<const Object *> {
    const Value *v = root->get(key);
    if (!v)
      return nullptr;
    if (const Object *o = v->getAsObject())
      return o;
    return llvm::createStringError("overhead table: \"" + key +
                                   "\" must be an object");
  };
  auto defaults = object("default");
  auto runtime = object("runtime");
  auto ops = object("ops");
  auto regions = object("regions");
  for (auto *section : {&defaults, &runtime, &ops, &regions})
    if (!*section)
      return section->takeError();
  if (*defaults) {
    auto entry = readEntry(**defaults, "default");
    if (!entry)
      return entry.takeError();
    table.defaults = *entry;
  }
  if (*runtime)
    for (const auto &kv : **runtime) {
      auto stats = readStats(kv.second, "runtime." + kv.first.str());
      if (!stats)
        return stats.takeError();
      table.runtime[kv.first] = *stats;
    }
  if (*ops)
    for (const auto &kv : **ops) {
      const Object *entryObject = kv.second.getAsObject();
      if (!entryObject)
        return llvm::createStringError("overhead table: ops." + kv.first.str() +
                                       " must be an object");
      auto entry = readEntry(*entryObject, "ops." + kv.first.str());
      if (!entry)
        return entry.takeError();
      table.ops[kv.first] = *entry;
    }
  if (*regions)
    for (const auto &kv : **regions) {
      const Object *entryObject = kv.second.getAsObject();
      const Value *t1 = entryObject ? entryObject->get("t1") : nullptr;
      if (!t1)
        return llvm::createStringError("overhead table: regions." +
                                       kv.first.str() +
                                       " must be an object with a \"t1\"");
      auto stats = readStats(*t1, "regions." + kv.first.str() + ".t1");
      if (!stats)
        return stats.takeError();
      table.regions[kv.first] = *stats;
    }
  return table;
}

llvm::Expected<HostOverheadTable>
HostOverheadTable::load(llvm::StringRef path) {
  auto json = readJsonFile(path);
  if (!json)
    return json.takeError();
  auto table = parse(*json);
  if (!table)
    return fileError(path, llvm::toString(table.takeError()));
  return table;
}

std::string perf::hostCatalogDir() {
  if (const char *env = std::getenv("PERF_HOST_DIR"))
    return env;
  for (const char *dir : {PERF_INSTALLED_HOST_DIR, PERF_SOURCE_HOST_DIR})
    if (llvm::sys::fs::is_directory(dir))
      return dir;
  return "";
}

/// The catalog's table files, sorted by name.
static std::vector<std::string> catalogFiles() {
  std::vector<std::string> files;
  std::string dir = hostCatalogDir();
  if (dir.empty())
    return files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".json")
      files.push_back(it->path());
  llvm::sort(files);
  return files;
}

std::vector<CatalogHost> perf::hostCatalog() {
  std::vector<CatalogHost> hosts;
  for (const std::string &file : catalogFiles()) {
    CatalogHost host;
    host.name = llvm::sys::path::stem(file).str();
    if (llvm::Expected<HostOverheadTable> table = HostOverheadTable::load(file))
      host.table = std::move(*table);
    else
      host.error = llvm::toString(table.takeError());
    hosts.push_back(std::move(host));
  }
  return hosts;
}

llvm::Expected<HostOverheadTable>
HostOverheadTable::resolve(llvm::StringRef nameOrPath) {
  if (llvm::sys::fs::exists(nameOrPath) || nameOrPath.contains('/') ||
      nameOrPath.ends_with(".json"))
    return load(nameOrPath);
  std::string dir = hostCatalogDir();
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, nameOrPath + ".json");
  if (!dir.empty() && llvm::sys::fs::exists(path))
    return load(path);
  std::string names;
  for (const std::string &file : catalogFiles())
    names += (names.empty() ? "" : ", ") + llvm::sys::path::stem(file).str();
  return llvm::createStringError(
      "no host '" + nameOrPath + "' in the catalog (" +
      (names.empty() ? std::string("empty") : names) +
      ") and no such table file; perf-opt --list-hosts lists the catalog");
}
