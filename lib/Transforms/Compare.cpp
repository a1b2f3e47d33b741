//===- Compare.cpp - --perf-compare ---------------------------------------===//
//
// Before/after of what-if transforms and predicted/measured of imported
// traces, one line per graph.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/EstimateBaseline.h"
#include "perf/Transforms/GraphWalk.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/ReportOutput.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>

namespace perf {
#define GEN_PASS_DEF_COMPARE
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

void perf::recordBaseline(GraphOp graph, StringRef transform) {
  Builder b(graph.getContext());
  if (auto estimate = graph->getAttrOfType<DictionaryAttr>(kEstimateAttr)) {
    if (!graph->hasAttr(kBaselineAttr))
      if (auto e2e = estimate.getAs<FloatAttr>("e2e_us"))
        graph->setAttr(kBaselineAttr, e2e);
    graph->removeAttr(kEstimateAttr);
  }
  SmallVector<Attribute> applied;
  if (auto list = graph->getAttrOfType<ArrayAttr>(kTransformsAttr))
    applied.assign(list.begin(), list.end());
  applied.push_back(b.getStringAttr(transform));
  graph->setAttr(kTransformsAttr, b.getArrayAttr(applied));
}

namespace {
std::optional<double> f64(Operation *op, StringRef name) {
  if (auto a = op->getAttrOfType<FloatAttr>(name))
    return a.getValueAsDouble();
  return std::nullopt;
}

struct ComparePass : perf::impl::CompareBase<ComparePass> {
  using CompareBase::CompareBase;

  void runOnOperation() override {
    if (format != "text" && format != "json") {
      getOperation().emitError("compare format must be text or json, got '")
          << format << "'";
      return signalPassFailure();
    }
    std::string text;
    llvm::raw_string_ostream stream(text);
    llvm::raw_ostream *os = &stream;
    llvm::json::Array graphs;
    LogicalResult compared = forEachGraph(getOperation(), [&](GraphOp graph) {
      auto estimate = graph->getAttrOfType<DictionaryAttr>(kEstimateAttr);
      auto e2eAttr = estimate ? estimate.getAs<FloatAttr>("e2e_us") : nullptr;
      if (!e2eAttr) {
        graph.emitError("no estimate to compare; run --estimate (or "
                        "--perf-critical-path) first");
        return failure();
      }
      double predicted = e2eAttr.getValueAsDouble();
      std::optional<double> baseline = f64(graph, kBaselineAttr);
      std::optional<double> measured = f64(graph, kMeasuredTimeAttr);
      std::string transforms;
      if (auto list = graph->getAttrOfType<ArrayAttr>(kTransformsAttr))
        for (Attribute a : list)
          transforms += (transforms.empty() ? "" : ", ") +
                        cast<StringAttr>(a).getValue().str();
      std::string iteration;
      if (auto name = graph->getAttrOfType<StringAttr>(kMeasuredIterationAttr))
        iteration = name.str();
      auto change = [](double to, double from) {
        return from > 0 ? 100.0 * (to - from) / from : 0.0;
      };
      if (format == "json") {
        llvm::json::Object o{{"graph", graph.getSymName()},
                             {"predicted_us", predicted}};
        if (baseline) {
          o["baseline_us"] = *baseline;
          o["change_pct"] = change(predicted, *baseline);
          o["transforms"] = transforms;
        }
        if (measured) {
          o["measured_us"] = *measured;
          o["iteration"] = iteration;
          o["error_pct"] = change(predicted, *measured);
        }
        graphs.push_back(std::move(o));
        return success();
      }
      *os << "perf compare: @" << graph.getSymName()
          << llvm::format("  predicted %.3f us\n", predicted);
      if (baseline)
        *os << llvm::format("  before transforms %12.3f us -> %12.3f us  "
                            "(%+.1f%%, speedup %.3fx)",
                            *baseline, predicted, change(predicted, *baseline),
                            predicted > 0 ? *baseline / predicted : 0.0)
            << "  [" << transforms << "]\n";
      if (measured)
        *os << llvm::format(
            "  measured          %12.3f us  (%s)  error %+.1f%%\n", *measured,
            iteration.c_str(), change(predicted, *measured));
      return success();
    });
    if (failed(compared))
      return signalPassFailure();
    if (format == "json")
      *os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                        {"schema", "perf.compare/1"},
                                        {"graphs", std::move(graphs)}}))
          << "\n";
    if (failed(writeReport(getOperation(), output, text, format == "json")))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
