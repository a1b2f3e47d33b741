//===- PerfDialect.cpp - perf dialect registration ------------------------===//

#include "perf/Dialect/PerfDialect.h"
#include "perf/Dialect/PerfOps.h"

using namespace perf;

#include "perf/Dialect/PerfOpsDialect.cpp.inc"

void PerfDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "perf/Dialect/PerfOps.cpp.inc"
      >();
}
