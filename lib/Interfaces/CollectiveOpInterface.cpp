//===- CollectiveOpInterface.cpp ------------------------------------------===//

#include "perf/Interfaces/CollectiveOpInterface.h"

#include "perf/Interfaces/CollectiveOpInterface.cpp.inc"
