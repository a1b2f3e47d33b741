//===- XGBoostLibrary.h - XGBoost's C API, loaded when first used -*- C++ -*-=//
//
// Training calls XGBoost through this table of its C API functions,
// resolved from libxgboost the first time a booster is trained (pricing walks
// a booster's trees in place: TreeEnsemble.h). Linking the library instead
// would load it, its OpenMP runtime and dmlc at every start of every tool
// (3 ms of a 9 ms start).
//
//===----------------------------------------------------------------------===//

#ifndef PERF_LIB_COSTMODEL_XGBOOSTLIBRARY_H
#define PERF_LIB_COSTMODEL_XGBOOSTLIBRARY_H

#include "llvm/Support/Error.h"
#include <xgboost/c_api.h>

namespace perf::xgboost {

/// The functions of the C API the learned models use, typed by the header
/// the build found (the library is looked up by that version's soname).
struct Api {
  decltype(&::XGBGetLastError) getLastError;
  decltype(&::XGDMatrixCreateFromMat) dmatrixCreateFromMat;
  decltype(&::XGDMatrixSetFloatInfo) dmatrixSetFloatInfo;
  decltype(&::XGDMatrixFree) dmatrixFree;
  decltype(&::XGBoosterCreate) boosterCreate;
  decltype(&::XGBoosterFree) boosterFree;
  decltype(&::XGBoosterSetParam) boosterSetParam;
  decltype(&::XGBoosterUpdateOneIter) boosterUpdateOneIter;
  decltype(&::XGBoosterSaveModelToBuffer) boosterSaveModelToBuffer;
};

/// Loads libxgboost on the first call (thread-safe) and returns its
/// functions, or an error naming the library and what the loader said.
llvm::Expected<const Api &> load();

/// The functions once `load()` has succeeded (every booster handle comes
/// from a loaded library, so code holding one calls this).
const Api &loaded();

} // namespace perf::xgboost

#endif // PERF_LIB_COSTMODEL_XGBOOSTLIBRARY_H
