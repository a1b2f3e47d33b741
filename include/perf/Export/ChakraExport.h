//===- ChakraExport.h - perf IR to Chakra execution traces ------*- C++ -*-===//
//
// One Chakra trace per device from an estimated perf graph, for ASTRA-sim:
// kernels become COMP nodes, collectives COMM_COLL nodes on every rank of
// their group, send/recv a COMM_SEND on the source and a COMM_RECV on the
// destination. Stream order gives control dependencies, SSA operands data
// dependencies.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_EXPORT_CHAKRAEXPORT_H
#define PERF_EXPORT_CHAKRAEXPORT_H

#include "perf/Comm/ChakraTrace.h"
#include "perf/Dialect/PerfOps.h"
#include <map>

namespace perf {

/// Traces of every device of `graph`, by device id. Fails with an error on
/// the op when device work has no `perf.latency_us`.
mlir::FailureOr<std::map<int64_t, chakra::Trace>>
exportChakraTraces(GraphOp graph);

/// Registers `--export-chakra` (writes <prefix>.<rank>.et for every device
/// and prints a summary) and `--dump-chakra` (prints a .et file as text).
void registerChakraTranslations();

} // namespace perf

#endif // PERF_EXPORT_CHAKRAEXPORT_H
