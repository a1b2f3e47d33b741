//===- XGBoostLibrary.cpp - XGBoost's C API, loaded when first used -------===//

#include "XGBoostLibrary.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/DynamicLibrary.h"
#include <cstdlib>
#include <string>
#ifdef __linux__
#include <sys/auxv.h>
#endif

using namespace perf;

namespace {
struct Loaded {
  xgboost::Api api{};
  std::string error;
};
} // namespace

/// Resolves `name` into `slot`; false (with `error` set) when it is missing.
template <typename Fn>
static bool resolve(llvm::sys::DynamicLibrary &library, const char *name,
                    Fn &slot, std::string &error) {
  slot = reinterpret_cast<Fn>(library.getAddressOfSymbol(name));
  if (!slot)
    error = std::string("has no ") + name;
  return slot != nullptr;
}

/// Whether this process was linked static: it has no program interpreter
/// (the dynamic loader), and a shared library loaded into it would run on a
/// C library of its own (XGBoost's thread-local storage faulted there).
static bool linkedStatic() {
#ifdef __linux__
  return getauxval(AT_BASE) == 0;
#else
  return false;
#endif
}

static Loaded loadLibrary() {
  Loaded out;
  if (linkedStatic()) {
    out.error = "training the learned models needs XGBoost's library, which "
                "this statically linked program cannot load: train with "
                "perf-train";
    return out;
  }
  // The soname the build linked against, then the file it found (a library
  // outside the loader's search path), unless PERF_XGBOOST_LIBRARY names one.
  std::string tried, error;
  llvm::sys::DynamicLibrary library;
  const char *override = std::getenv("PERF_XGBOOST_LIBRARY");
  const char *candidates[] = {PERF_XGBOOST_SONAME, PERF_XGBOOST_PATH};
  for (const char *name : override ? llvm::ArrayRef<const char *>(override)
                                   : llvm::ArrayRef(candidates)) {
    library = llvm::sys::DynamicLibrary::getPermanentLibrary(name, &error);
    tried = name;
    if (library.isValid())
      break;
  }
  if (!library.isValid()) {
    out.error = "training the learned models needs XGBoost's library, and '" +
                tried + "' did not load: " + error +
                " (on Debian: apt-get install libxgboost0)";
    return out;
  }
  xgboost::Api &api = out.api;
  std::string missing;
  bool ok =
      resolve(library, "XGBGetLastError", api.getLastError, missing) &&
      resolve(library, "XGDMatrixCreateFromMat", api.dmatrixCreateFromMat,
              missing) &&
      resolve(library, "XGDMatrixSetFloatInfo", api.dmatrixSetFloatInfo,
              missing) &&
      resolve(library, "XGDMatrixFree", api.dmatrixFree, missing) &&
      resolve(library, "XGBoosterCreate", api.boosterCreate, missing) &&
      resolve(library, "XGBoosterFree", api.boosterFree, missing) &&
      resolve(library, "XGBoosterSetParam", api.boosterSetParam, missing) &&
      resolve(library, "XGBoosterUpdateOneIter", api.boosterUpdateOneIter,
              missing) &&
      resolve(library, "XGBoosterSaveModelToBuffer",
              api.boosterSaveModelToBuffer, missing);
  if (!ok)
    out.error = "XGBoost's library '" + tried + "' " + missing +
                " (training the learned models needs XGBoost 1.6 or later)";
  return out;
}

static const Loaded &library() {
  // Initialised once, by whichever thread asks first.
  static const Loaded loaded = loadLibrary();
  return loaded;
}

llvm::Expected<const xgboost::Api &> xgboost::load() {
  const Loaded &loaded = library();
  if (!loaded.error.empty())
    return llvm::createStringError(loaded.error);
  return loaded.api;
}

const xgboost::Api &xgboost::loaded() {
  const Loaded &loaded = library();
  if (!loaded.error.empty())
    llvm::report_fatal_error(llvm::Twine("xgboost::loaded() before load(): ") +
                             loaded.error);
  return loaded.api;
}
