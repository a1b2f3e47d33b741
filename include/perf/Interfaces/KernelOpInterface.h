//===- KernelOpInterface.h --------------------------------------*- C++ -*-===//

#ifndef PERF_INTERFACES_KERNELOPINTERFACE_H
#define PERF_INTERFACES_KERNELOPINTERFACE_H

#include "perf/Support/KernelDesc.h"
#include "mlir/IR/OpDefinition.h"

#include "perf/Interfaces/KernelOpInterface.h.inc"

#endif // PERF_INTERFACES_KERNELOPINTERFACE_H
