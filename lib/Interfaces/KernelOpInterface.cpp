//===- KernelOpInterface.cpp ----------------------------------------------===//

#include "perf/Interfaces/KernelOpInterface.h"

#include "perf/Interfaces/KernelOpInterface.cpp.inc"
