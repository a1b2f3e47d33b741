//===- PerfDialect.cpp - perf dialect registration ------------------------===//

#include "perf/Dialect/PerfDialect.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Support/InputFile.h"

using namespace mlir;

using namespace perf;

#include "perf/Dialect/PerfOpsDialect.cpp.inc"

/// Every perf.*_us attribute is a time: a finite non-negative number (a NaN,
/// infinite or negative one would flow into the estimate unnoticed).
LogicalResult PerfDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (!name.ends_with("_us"))
    return success();
  double value;
  if (auto f = dyn_cast<FloatAttr>(attr.getValue()))
    value = f.getValueAsDouble();
  else if (auto i = dyn_cast<IntegerAttr>(attr.getValue()))
    value = i.getValue().signedRoundToDouble();
  else
    return success(); // A summary (perf.estimate's dictionary).
  if (isFiniteAtLeast(value, 0))
    return success();
  return op->emitOpError("'") << name
                              << "' must be a finite non-negative number of "
                                 "microseconds, got "
                              << value;
}

void PerfDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "perf/Dialect/PerfOps.cpp.inc"
      >();
}
