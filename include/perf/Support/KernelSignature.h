//===- KernelSignature.h - Canonical shape keys of the perf DB --*- C++ -*-===//
//
// The signature strings of docs/perf-db.md. The benchmark writer, the `db`
// model and perf-train must agree on them byte for byte, so they are built in
// one place.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_KERNELSIGNATURE_H
#define PERF_SUPPORT_KERNELSIGNATURE_H

#include "perf/Support/KernelDesc.h"
#include "llvm/Support/Error.h"
#include <string>

namespace perf {

/// The signature of `kernel` as docs/perf-db.md fixes it, e.g.
/// "b=1 m=1024 n=1024 k=1024 ta=0 tb=0" for a GEMM. Kinds without a row in
/// that table (attention, generic) get "flops=<F> bytes=<B>".
std::string kernelSignature(const KernelDesc &kernel);

/// The inverse of kernelSignature for the kinds docs/perf-db.md lists:
/// rebuilds the kernel from its kind name and signature (perf-train reads
/// the database this way).
llvm::Expected<KernelDesc> parseKernelSignature(llvm::StringRef kind,
                                                llvm::StringRef signature);

/// "fwd", "dgrad", "wgrad" or "bwd" as the signatures spell the pass.
llvm::StringRef kernelPassName(const KernelDesc &kernel);

} // namespace perf

#endif // PERF_SUPPORT_KERNELSIGNATURE_H
