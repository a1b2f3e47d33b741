//===- ParameterFit.h - Fitting a few parameters to measurements -*- C++ -*-=//
//
// The analytic models (tensor-core GEMM, attention) have a handful of
// physical parameters, efficiencies and fixed costs, each in a range that
// keeps it physical. They are fitted by minimizing the squared log error of
// their prices over measured rows with Nelder and Mead's simplex search,
// which needs no derivatives of a model that takes maxima and ceilings.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_PARAMETERFIT_H
#define PERF_COSTMODEL_PARAMETERFIT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <vector>

namespace perf {

/// One parameter: where the search starts and the range it stays in.
struct FitParameter {
  double start;
  double lo, hi;
};

/// The parameters minimizing `loss` within their ranges (a value outside is
/// clamped before `loss` sees it), after at most `iterations` simplex steps.
std::vector<double>
minimizeWithin(llvm::ArrayRef<FitParameter> parameters,
               llvm::function_ref<double(llvm::ArrayRef<double>)> loss,
               unsigned iterations = 2000);

/// The mean squared log error of `predicted` against `measured` (positive
/// times; a non-positive prediction counts as a large error).
double meanSquaredLogError(llvm::ArrayRef<double> predicted,
                           llvm::ArrayRef<double> measured);

} // namespace perf

#endif // PERF_COSTMODEL_PARAMETERFIT_H
