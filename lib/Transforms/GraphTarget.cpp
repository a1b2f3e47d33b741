//===- GraphTarget.cpp ----------------------------------------------------===//

#include "perf/Transforms/GraphTarget.h"

using namespace perf;
using namespace mlir;

FailureOr<GpuSpec> perf::getGraphGpu(GraphOp graph) {
  if (GpuAttr gpu = graph.getGpuTarget())
    return gpu.getSpec();
  graph.emitError() << "graph @" << graph.getSymName()
                    << " has no target GPU; set `target = #perf.gpu<\"...\">`"
                       " or pass --perf-device=<name>";
  return failure();
}
