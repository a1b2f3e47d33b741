//===- EstimatePipeline.cpp - The default cost pipeline -------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <utility>

using namespace perf;
using namespace mlir;

void perf::buildEstimatePipeline(OpPassManager &pm,
                                 const EstimateOptions &options,
                                 EstimateOutputs outputs) {
  pm.addPass(createKernelCost(options.kernelCost));
  // Does nothing on a graph without collectives.
  pm.addNestedPass<GraphOp>(createCommCost(options.commCost));
  pm.addNestedPass<GraphOp>(createHostOverhead(options.hostOverhead));
  pm.addPass(outputs.timeline
                 ? createCriticalPath(options.criticalPath, *outputs.timeline)
                 : createCriticalPath(options.criticalPath));
  pm.addPass(outputs.report ? createReport(options.report, *outputs.report)
                            : createReport(options.report));
}

/// Splits a textual pass list at its top-level commas: commas inside
/// `{options}`, `(nested pipelines)` and quotes belong to their element.
static SmallVector<StringRef> splitPassList(StringRef text) {
  SmallVector<StringRef> elements;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '\'' || c == '"')
      quote = c;
    else if (c == '{' || c == '(')
      ++depth;
    else if ((c == '}' || c == ')') && depth > 0)
      --depth;
    else if (c == ',' && depth == 0) {
      elements.push_back(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  elements.push_back(text.drop_front(start).trim());
  return elements;
}

LogicalResult perf::parsePassList(StringRef pipeline, OpPassManager &pm,
                                  raw_ostream &errorStream) {
  StringRef graphName = GraphOp::getOperationName();
  std::optional<StringRef> pmName = pm.getOpName();
  for (StringRef element : splitPassList(pipeline)) {
    if (element.empty())
      continue;
    // An op-agnostic pass manager takes any pass, so it shows which
    // operation the element's passes are anchored on.
    OpPassManager probe;
    if (failed(parsePassPipeline(element, probe, errorStream)))
      return failure();
    bool perGraph =
        probe.size() != 0 && llvm::all_of(probe.getPasses(), [&](Pass &pass) {
          return pass.getOpName() == graphName;
        });
    OpPassManager &target =
        perGraph && pmName && *pmName != graphName ? pm.nest(graphName) : pm;
    if (failed(parsePassPipeline(element, target, errorStream)))
      return failure();
  }
  return checkLayoutOrder(pm, errorStream);
}

/// The layout passes in the order they compose.
static constexpr llvm::StringLiteral kLayoutPasses[] = {
    "perf-expert-parallel", "perf-tensor-parallel", "perf-pipeline-parallel",
    "perf-data-parallel", "perf-zero"};

std::vector<std::string> perf::pipelinePassNames(OpPassManager &pm) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  // Options (in braces, their values perhaps quoted) are skipped.
  std::vector<std::string> names;
  int depth = 0;
  char quote = 0;
  size_t start = std::string::npos;
  auto isNameChar = [](char c) {
    return llvm::isAlnum(c) || c == '-' || c == '_' || c == '.';
  };
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ' ';
    if (quote) {
      quote = c == quote ? 0 : quote;
      continue;
    }
    if (depth == 0 && isNameChar(c)) {
      if (start == std::string::npos)
        start = i;
      continue;
    }
    if (start != std::string::npos) {
      names.push_back(text.substr(start, i - start));
      start = std::string::npos;
    }
    if (c == '\'' || c == '"')
      quote = c;
    else if (c == '{')
      ++depth;
    else if (c == '}' && depth > 0)
      --depth;
  }
  return names;
}

LogicalResult perf::checkLayoutOrder(OpPassManager &pm,
                                     raw_ostream &errorStream) {
  SmallVector<size_t> ranks;
  for (const std::string &name : pipelinePassNames(pm)) {
    const auto *it = llvm::find(kLayoutPasses, name);
    if (it != std::end(kLayoutPasses))
      ranks.push_back(it - std::begin(kLayoutPasses));
  }
  for (size_t i = 1; i < ranks.size(); ++i) {
    StringRef earlier = kLayoutPasses[ranks[i - 1]],
              later = kLayoutPasses[ranks[i]];
    if (ranks[i] == ranks[i - 1]) {
      errorStream << "--" << later
                  << " is given twice; give it once, with every device";
      return failure();
    }
    if (ranks[i] < ranks[i - 1]) {
      errorStream << "--" << later << " comes after --" << earlier
                  << "; the layout passes compose as expert, tensor, "
                     "pipeline and data parallelism, then ZeRO: give --"
                  << later << " first";
      return failure();
    }
  }
  return success();
}

llvm::Expected<EstimateResult> perf::runEstimate(ModuleOp module,
                                                 llvm::StringRef device,
                                                 llvm::StringRef pipeline,
                                                 EstimateOptions options,
                                                 bool withTimeline) {
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    diagStream << d.getLocation() << ": " << d.str() << "\n";
    return success();
  });
  // Passes that work per graph nest under perf.graph.
  PassManager pm(module.getContext(), ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  if (!device.empty()) {
    SetTargetOptions target;
    (device.ends_with(".json") ? target.deviceFile : target.device) =
        device.str();
    pm.addPass(createSetTarget(target));
  }
  if (!pipeline.empty() && failed(parsePassList(pipeline, pm, diagStream)))
    return llvm::createStringError(llvm::StringRef(diagnostics).trim());
  EstimateResult result;
  EstimateOutputs outputs{&result.report,
                          withTimeline ? &result.timeline : nullptr};
  buildEstimatePipeline(pm, options, outputs);
  if (failed(pm.run(module)))
    return llvm::createStringError(llvm::StringRef(diagnostics).trim());
  return result;
}

namespace {
/// The `estimate` pipeline's textual options, one per line of
/// EstimateOptions.def, each of the type its pass option has.
struct EstimatePipelineOptions
    : public PassPipelineOptions<EstimatePipelineOptions> {
#define PERF_ESTIMATE_OPTION(PASS, FIELD, NAME, DESCRIPTION)                   \
  Option<decltype(std::declval<EstimateOptions>().PASS.FIELD)> PASS##_##FIELD{ \
      *this, NAME, llvm::cl::desc(DESCRIPTION)};
#include "perf/Transforms/EstimateOptions.def"
};
} // namespace

/// Copies the options `parsed` was given into `options`.
static void copySetOptions(const EstimatePipelineOptions &parsed,
                           EstimateOptions &options) {
#define PERF_ESTIMATE_OPTION(PASS, FIELD, NAME, DESCRIPTION)                   \
  if (parsed.PASS##_##FIELD.hasValue())                                        \
    options.PASS.FIELD = parsed.PASS##_##FIELD;
#include "perf/Transforms/EstimateOptions.def"
}

llvm::Error perf::applyEstimateOptions(EstimateOptions &options,
                                       llvm::StringRef text) {
  EstimatePipelineOptions parsed;
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(parsed.parseFromString(text, os)))
    return llvm::createStringError(
        "bad estimate options '" + text + "'" +
        (errors.empty() ? std::string()
                        : ": " + llvm::StringRef(errors).trim().str()));
  copySetOptions(parsed, options);
  return llvm::Error::success();
}

void perf::registerPerfPassesAndPipelines(
    std::function<EstimateOptions()> defaults) {
  registerPerfPasses();
  PassPipelineRegistration<EstimatePipelineOptions>(
      "estimate",
      "Prices every kernel and host overhead, computes the critical path and "
      "prints the report",
      [defaults](OpPassManager &pm, const EstimatePipelineOptions &opts) {
        EstimateOptions options = defaults ? defaults() : EstimateOptions();
        copySetOptions(opts, options);
        buildEstimatePipeline(pm, options);
      });
}
