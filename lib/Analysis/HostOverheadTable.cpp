//===- HostOverheadTable.cpp ----------------------------------------------===//

#include "perf/Analysis/HostOverheadTable.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"

using namespace perf;
using llvm::json::Object;
using llvm::json::Value;

HostOverheadTable::HostOverheadTable() : defaults{8.0, 10.0, 5.0, 10.0, 5.0} {}

static constexpr const char *kTypeKeys[5] = {"t1", "t2", "t3", "t4", "t5"};

/// A value is a number (the mean) or {"mean": m, ...}; a duration, so finite
/// and non-negative.
static llvm::Expected<double> readMean(const Value &v, llvm::StringRef where) {
  std::optional<double> d = v.getAsNumber();
  if (const Object *o = v.getAsObject())
    if (const Value *mean = o->get("mean"))
      d = mean->getAsNumber();
  if (d && isFiniteAtLeast(*d, 0))
    return *d;
  return llvm::createStringError(
      "overhead table: " + where +
      " must be a finite non-negative number of microseconds or an object "
      "with one as \"mean\"");
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
  if (const Value *d = root->get("default")) {
    const Object *o = d->getAsObject();
    if (!o)
      return llvm::createStringError(
          "overhead table: \"default\" must be an object");
    for (int t = 0; t < 5; ++t)
      if (const Value *v = o->get(kTypeKeys[t])) {
        auto mean = readMean(*v, std::string("default.") + kTypeKeys[t]);
        if (!mean)
          return mean.takeError();
        table.defaults[t] = *mean;
      }
  }
  if (const Value *r = root->get("runtime")) {
    const Object *o = r->getAsObject();
    if (!o)
      return llvm::createStringError(
          "overhead table: \"runtime\" must be an object");
    for (const auto &kv : *o) {
      auto mean = readMean(kv.second, "runtime." + kv.first.str());
      if (!mean)
        return mean.takeError();
      table.runtime[kv.first] = *mean;
    }
  }
  if (const Value *opsValue = root->get("ops")) {
    const Object *o = opsValue->getAsObject();
    if (!o)
      return llvm::createStringError(
          "overhead table: \"ops\" must be an object");
    for (const auto &kv : *o) {
      const Object *entry = kv.second.getAsObject();
      if (!entry)
        return llvm::createStringError("overhead table: ops." +
                                       kv.first.str() +
                                       " must be an object");
      Entry e;
      for (int t = 0; t < 5; ++t)
        if (const Value *v = entry->get(kTypeKeys[t])) {
          auto mean = readMean(*v, "ops." + kv.first.str() + "." +
                                       kTypeKeys[t]);
          if (!mean)
            return mean.takeError();
          e[t] = *mean;
        }
      table.ops[kv.first] = e;
    }
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

double HostOverheadTable::get(llvm::StringRef op, Overhead type) const {
  int t = static_cast<int>(type);
  auto it = ops.find(op);
  if (it != ops.end() && it->second[t])
    return *it->second[t];
  return defaults[t];
}

double HostOverheadTable::syncCall(llvm::StringRef function) const {
  auto it = runtime.find(function);
  return it != runtime.end() ? it->second : 0;
}

double HostOverheadTable::runtimeCall(llvm::StringRef function) const {
  auto it = runtime.find(function);
  if (it != runtime.end())
    return it->second;
  return defaults[static_cast<int>(Overhead::T4)];
}
