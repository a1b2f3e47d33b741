//===- ReportOutput.h - Where the report passes write -----------*- C++ -*-===//

#ifndef PERF_TRANSFORMS_REPORTOUTPUT_H
#define PERF_TRANSFORMS_REPORTOUTPUT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/GraphWalk.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace perf {
/// Where reports whose path is "-" go: stdout unless a tool prints the IR
/// there, when it sends them to stderr so that the IR still pipes into the
/// next tool (perf-opt does; docs/estimate.md, "Where output goes").
void setStandardReportStream(llvm::raw_ostream &os);

/// Writes a rendered report to `path`: "-" is the standard report stream,
/// an empty path writes nothing. A file that cannot be written is an error
/// on `op`, and so is a second JSON report for the standard stream (two
/// documents one after the other are not JSON a reader accepts).
mlir::LogicalResult writeReport(mlir::Operation *op, llvm::StringRef path,
                                llvm::StringRef text, bool json = false);

/// Writes the distinct kernels of every perf.graph of `module` to `path` as
/// a perf.kernel_list/1 JSON document (the Report pass's `kernel-list`).
mlir::LogicalResult writeKernelList(mlir::ModuleOp module,
                                    llvm::StringRef path);

/// Summarizes every perf.graph of `module` with `analyze` (which reports its
/// own errors) and renders the summaries: as
/// `{"schema": schema, "graphs": [toJson(summary)...]}` when `format` is
/// "json", else each printed by `printText`.
template <typename AnalyzeFn, typename JsonFn, typename TextFn>
mlir::FailureOr<std::string>
renderGraphReport(mlir::ModuleOp module, llvm::StringRef format,
                  llvm::StringRef schema, AnalyzeFn analyze, JsonFn toJson,
                  TextFn printText) {
  using Summary = typename std::invoke_result_t<AnalyzeFn, GraphOp>::value_type;
  std::vector<Summary> summaries;
  if (mlir::failed(forEachGraph(module, [&](GraphOp graph) {
        mlir::FailureOr<Summary> s = analyze(graph);
        if (mlir::failed(s))
          return mlir::failure();
        summaries.push_back(std::move(*s));
        return mlir::success();
      })))
    return mlir::failure();
  // An input without a graph (an empty file) has no answer to report.
  if (summaries.empty())
    return module.emitError("no perf.graph in the input to report on");
  std::string text;
  llvm::raw_string_ostream os(text);
  if (format == "json") {
    llvm::json::Array graphs;
    for (const Summary &s : summaries)
      graphs.push_back(toJson(s));
    os << llvm::formatv("{0:2}",
                        llvm::json::Value(llvm::json::Object{
                            {"schema", schema}, {"graphs", std::move(graphs)}}))
       << "\n";
  } else {
    for (const Summary &s : summaries)
      printText(s, os);
  }
  return text;
}

/// renderGraphReport, written to `path` (writeReport).
template <typename AnalyzeFn, typename JsonFn, typename TextFn>
mlir::LogicalResult
writeGraphReport(mlir::ModuleOp module, llvm::StringRef format,
                 llvm::StringRef path, llvm::StringRef schema,
                 AnalyzeFn analyze, JsonFn toJson, TextFn printText) {
  mlir::FailureOr<std::string> text =
      renderGraphReport(module, format, schema, analyze, toJson, printText);
  if (mlir::failed(text))
    return mlir::failure();
  return writeReport(module, path, *text, format == "json");
}
} // namespace perf

#endif // PERF_TRANSFORMS_REPORTOUTPUT_H
