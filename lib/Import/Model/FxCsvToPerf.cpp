//===- FxCsvToPerf.cpp - A step from a per-node torch.fx CSV --------------===//
//
// Reads the NeuSight per-node CSV of a torch.fx graph (one row per node: op,
// target, input node names, input shapes, output shape, dtype, and the
// measured forward/backward time of the node) and builds the step: one
// perf.op per node that launches work, its kernels from the ATen rule table,
// the data flow from the rows' input node names. The graph holds one
// transformer layer; the rows of that layer are repeated `num_layer` times
// (from --num-layer, else the label JSON beside the CSV).
//
// With measured times (the default) each kernel carries its node's measured
// forward time and the backward of a training step is one measured kernel
// per node; without them the cost models price the kernels and a training
// step gets its backward from --perf-synthesize-training, so the two can be
// compared node by node. The GPU the times were measured on (the label
// folder, or --fx-device) becomes the graph's target and `perf.measured_on`,
// so `perf-opt --perf-device=<other>` moves them to another GPU.
//
//===----------------------------------------------------------------------===//

#include "perf/Import/ImportTranslation.h"
#include "perf/Import/ModelConfigImport.h"
#include "perf/Import/TraceKernels.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "perf/CostModel/KernelCostModel.h"
#include "perf/CostModel/KernelMeasurements.h"
#include "perf/Dialect/InputDiagnostics.h"
#include "perf/Dialect/PerfDialect.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Limits.h"
#include "perf/Trace/TraceFile.h"
#include "perf/Transforms/Passes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"

using namespace perf;
using namespace mlir;

namespace {

/// The measured forward and backward time of a node, on its perf.op.
constexpr llvm::StringLiteral kFxForwardUsAttr = "fx.fw_us";
constexpr llvm::StringLiteral kFxBackwardUsAttr = "fx.bw_us";

/// One node of the fx graph as the CSV records it.
struct FxNode {
  unsigned line = 0;
  std::string op, target, name, dtype, moduleClass, layer;
  std::vector<std::string> inputs;
  std::vector<std::vector<int64_t>> inputShapes;
  std::vector<int64_t> outputShape;
  bool scalarOutput = false;
  double fwMs = 0, bwMs = 0;
};

llvm::Error csvError(StringRef path, unsigned line,
                     const llvm::Twine &message) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      (path + ":" + llvm::Twine(line) + ": " + message).str());
}

/// "[[4, 1024], [1]]" -> {{4, 1024}, {1}}; "(4, 1024)" -> {{4, 1024}}.
std::vector<std::vector<int64_t>> parseShapes(StringRef text) {
  std::vector<std::vector<int64_t>> shapes;
  std::vector<int64_t> current;
  int depth = 0;
  int64_t value = 0;
  bool inNumber = false;
  unsigned innermost = text.starts_with("[[") ? 2 : 1;
  for (char ch : text) {
    if (ch == '[' || ch == '(') {
      ++depth;
      if (depth == int(innermost))
        current.clear();
    } else if (ch == ']' || ch == ')') {
      if (inNumber)
        current.push_back(value);
      inNumber = false;
      if (depth == int(innermost))
        shapes.push_back(current);
      --depth;
    } else if (ch >= '0' && ch <= '9') {
      // Saturates above max-extent, which the caller reports.
      value = inNumber ? std::min(value * 10 + (ch - '0'), kMaxExtent.max + 1)
                       : ch - '0';
      inNumber = true;
    } else if (inNumber) {
      current.push_back(value);
      inNumber = false;
    }
  }
  return shapes;
}

/// The node names of "{input_ids: None, getitem: None}".
std::vector<std::string> parseInputNodes(StringRef text) {
  std::vector<std::string> names;
  text = text.trim();
  text.consume_front("{");
  text.consume_back("}");
  SmallVector<StringRef> parts;
  text.split(parts, ',', -1, false);
  for (StringRef part : parts) {
    StringRef name = part.split(':').first.trim();
    if (!name.empty())
      names.push_back(name.str());
  }
  return names;
}

/// "<built-in method matmul of type object at 0x..>" -> "matmul",
/// "<built-in function add>" -> "add", "<function softmax at 0x..>" ->
/// "softmax", "<class 'torch.finfo'>" -> "torch.finfo".
std::string targetName(StringRef target) {
  static const llvm::Regex builtin(
      "^<built-in (method|function) ([A-Za-z0-9_]+)");
  static const llvm::Regex function("^<function ([A-Za-z0-9_]+)");
  static const llvm::Regex cls("^<class '([A-Za-z0-9_.]+)'>");
  SmallVector<StringRef> m;
  if (builtin.match(target, &m))
    return m[2].str();
  if (function.match(target, &m))
    return m[1].str();
  if (cls.match(target, &m))
    return m[1].str();
  return target.str();
}

/// The ATen op an fx node runs; empty for nodes that launch nothing.
std::string atenOf(const FxNode &n, bool training) {
  if (n.op == "placeholder" || n.op == "get_attr" || n.op == "output" ||
      n.scalarOutput)
    return "";
  if (n.op == "call_module") {
    StringRef c = n.moduleClass;
    if (c == "Linear")
      return "linear";
    if (c == "LayerNorm")
      return "native_layer_norm";
    if (c == "Embedding")
      return "embedding";
    if (c == "Dropout")
      return training ? "native_dropout" : "";
    return llvm::StringSwitch<std::string>(c)
        .Cases({"GELU", "GELUActivation", "NewGELUActivation"}, "gelu")
        .Case("ReLU", "relu")
        .Case("Tanh", "tanh")
        .Cases({"SiLU", "SiLUActivation"}, "silu")
        .Case("Softmax", "_softmax")
        .Default(("module:" + c).str());
  }
  std::string t = targetName(n.target);
  std::string mapped = llvm::StringSwitch<std::string>(t)
                           .Case("truediv", "div")
                           .Case("softmax", "_softmax")
                           .Case("getitem", "select")
                           .Case("getattr", "size")
                           .Case("torch.finfo", "size")
                           .Case("dropout", training ? "native_dropout" : "")
                           .Case("max", "maximum")
                           .Case("tensor", "full")
                           .Case("reshape", "contiguous")
                           .Default(t);
  if (mapped == "to" || mapped == "type" || mapped == "type_as" ||
      mapped == "long" || mapped == "bool" || mapped == "float")
    return "_to_copy";
  return mapped;
}

/// The module path of the block a node belongs to ("transformer.h.0"), from
/// the innermost nn_module_stack entry whose path ends in a number.
std::string layerOf(StringRef meta) {
  static const llvm::Regex entry("'([A-Za-z0-9_.]+\\.[0-9]+)'");
  SmallVector<StringRef> m;
  return entry.match(meta, &m) ? m[1].str() : std::string();
}

/// The innermost module class of a row's nn_module_stack.
std::string moduleClassOf(StringRef meta) {
  static const llvm::Regex cls("<class '([A-Za-z0-9_.]+)'>\\)\\]\\)");
  SmallVector<StringRef> m;
  if (!cls.match(meta, &m))
    return "";
  return m[1].rsplit('.').second.str();
}

/// Every shape a row records: its inputs' and its output's.
std::vector<const std::vector<int64_t> *> shapesOf(const FxNode &n) {
  std::vector<const std::vector<int64_t> *> shapes{&n.outputShape};
  for (const std::vector<int64_t> &shape : n.inputShapes)
    shapes.push_back(&shape);
  return shapes;
}

llvm::Expected<std::vector<FxNode>> parseFxCsv(StringRef text, StringRef path) {
  // Records may span lines inside quotes; split on unquoted newlines.
  std::vector<std::pair<unsigned, std::string>> records;
  std::string record;
  bool quoted = false;
  unsigned line = 1, recordLine = 1;
  for (char ch : text) {
    if (ch == '"')
      quoted = !quoted;
    if (ch == '\n' && !quoted) {
      records.push_back({recordLine, record});
      record.clear();
      recordLine = ++line;
      continue;
    }
    if (ch == '\n')
      ++line;
    record.push_back(ch);
  }
  if (!record.empty())
    records.push_back({recordLine, record});
  if (records.empty())
    return csvError(path, 1, "empty file: expected a header row");
  std::vector<std::string> header = splitCsvRecord(records[0].second);
  llvm::StringMap<unsigned> column;
  for (unsigned i = 0; i < header.size(); ++i)
    column[StringRef(header[i]).trim()] = i;
  for (const char *required :
       {"op", "target", "_input_nodes", "input_shapes", "output_shape", "dtype",
        "fw_latency", "bw_latency", "Name", "meta"})
    if (!column.count(required))
      return csvError(path, 1,
                      llvm::Twine("missing column '") + required + "'");
  std::vector<FxNode> nodes;
  for (size_t r = 1; r < records.size(); ++r) {
    if (StringRef(records[r].second).trim().empty())
      continue;
    std::vector<std::string> f = splitCsvRecord(records[r].second);
    if (f.size() < header.size())
      return csvError(path, records[r].first,
                      "has " + llvm::Twine(f.size()) + " fields, the header " +
                          llvm::Twine(header.size()));
    auto get = [&](StringRef name) -> StringRef { return f[column[name]]; };
    FxNode n;
    n.line = records[r].first;
    n.op = get("op").str();
    n.target = get("target").str();
    n.name = get("Name").str();
    n.dtype = get("dtype").str();
    n.inputs = parseInputNodes(get("_input_nodes"));
    n.inputShapes = parseShapes(get("input_shapes"));
    std::vector<std::vector<int64_t>> out = parseShapes(get("output_shape"));
    if (!out.empty())
      n.outputShape = out.front();
    for (const std::vector<int64_t> *shape : shapesOf(n))
      if (std::optional<std::string> bad = checkTensorShape(*shape))
        return csvError(path, n.line, "node '" + n.name + "': " + *bad);
    n.scalarOutput = n.dtype.empty();
    n.moduleClass = moduleClassOf(get("meta"));
    n.layer = layerOf(get("meta"));
    if (get("fw_latency").trim().getAsDouble(n.fwMs) ||
        get("bw_latency").trim().getAsDouble(n.bwMs) || n.fwMs < 0 ||
        n.bwMs < 0 || !std::isfinite(n.fwMs) || !std::isfinite(n.bwMs))
      return csvError(path, n.line,
                      "node '" + n.name +
                          "': fw_latency and bw_latency must be "
                          "non-negative numbers");
    nodes.push_back(std::move(n));
  }
  return nodes;
}

class FxStepBuilder {
public:
  FxStepBuilder(MLIRContext *ctx, Location fileLoc, bool measured,
                bool training)
      : b(ctx), fileLoc(fileLoc), measured(measured), training(training) {}

  OwningOpRef<ModuleOp> build(const std::vector<FxNode> &nodes,
                              int64_t numLayers) {
    OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
    b.setInsertionPointToEnd(module->getBody());
    graph = GraphOp::create(b, fileLoc, "step");
    b.setInsertionPointToEnd(&graph.getBodyBlock());
    // The first block's rows, repeated.
    std::string firstLayer;
    for (const FxNode &n : nodes)
      if (!n.layer.empty()) {
        firstLayer = n.layer;
        break;
      }
    size_t i = 0;
    while (i < nodes.size()) {
      if (firstLayer.empty() || nodes[i].layer != firstLayer) {
        emit(nodes[i], "");
        ++i;
        continue;
      }
      size_t end = i;
      while (end < nodes.size() && nodes[end].layer == firstLayer)
        ++end;
      emitLayers(nodes, i, end, numLayers, firstLayer);
      i = end;
    }
    if (training && measured)
      emitMeasuredBackward();
    if (measured)
      removeIsolatedLaunches();
    if (kernelBeyondLimits)
      return nullptr;
    return module;
  }

  /// The fastest measured node: the fixed cost of timing one node alone.
  double launchUs = 0;

  unsigned unknown = 0;
  std::string unknownList;

private:
  /// Whether a node's kernel was above the dialect's limits (reported at
  /// the node's line; the import fails).
  bool kernelBeyondLimits = false;

  OpBuilder b;
  Location fileLoc;
  bool measured, training;
  GraphOp graph;
  /// The copy of the transformer block being emitted, -1 outside it.
  int64_t currentLayer = -1;
  llvm::StringMap<Value> values;
  /// The dtype each node's output has ("torch.float32").
  llvm::StringMap<std::string> dtypes;
  int64_t nextTensorId = 0;
  struct Emitted {
    FrameworkOp op;
    double bwMs;
  };
  std::vector<Emitted> forward;
  /// Each measured node's op (all of whose work is its kernels) and the
  /// node's measured time.
  std::vector<std::pair<FrameworkOp, double>> measuredNodes;

  /// Repeats rows [begin, end) `count` times; the hidden state entering
  /// the block (the first row's first input) is the previous copy's last
  /// output.
  void emitLayers(const std::vector<FxNode> &nodes, size_t begin, size_t end,
                  int64_t count, StringRef layer) {
    std::string hiddenIn =
        nodes[begin].inputs.empty() ? "" : nodes[begin].inputs.front();
    std::string lastOut = nodes[end - 1].name;
    for (int64_t copy = 0; copy < count; ++copy) {
      if (copy > 0 && !hiddenIn.empty() && values.count(lastOut))
        values[hiddenIn] = values[lastOut];
      std::string prefix =
          layer.rsplit('.').first.str() + "." + std::to_string(copy);
      currentLayer = copy;
      for (size_t r = begin; r < end; ++r)
        emit(nodes[r], prefix);
    }
    currentLayer = -1;
  }

  void emit(const FxNode &n, StringRef layerPrefix) {
    std::string aten = atenOf(n, training);
    // to()/type() to the dtype the tensor already has return it unchanged.
    if (aten == "_to_copy" && !n.inputs.empty() &&
        dtypes.lookup(n.inputs.front()) == n.dtype)
      aten.clear();
    if (!n.dtype.empty())
      dtypes[n.name] = n.dtype;
    if (aten.empty()) {
      // Views, identities and host arithmetic: the value flows through.
      for (const std::string &in : n.inputs)
        if (Value v = values.lookup(in)) {
          values[n.name] = v;
          break;
        }
      return;
    }
    DType type = parseDType(n.dtype).value_or(DType::F32);
    TracedOp traced;
    traced.name = "aten::" + aten;
    std::vector<std::vector<int64_t>> shapes = n.inputShapes;
    // A linear module's weight is [out, in]; an embedding's table has at
    // least as many rows as lookups (its size is not recorded).
    if (aten == "linear" && !shapes.empty() && !shapes[0].empty() &&
        !n.outputShape.empty())
      shapes.push_back({n.outputShape.back(), shapes[0].back()});
    if (aten == "embedding" && !n.outputShape.empty()) {
      int64_t lookups = 1;
      for (int64_t d : llvm::ArrayRef<int64_t>(n.outputShape).drop_back())
        lookups *= d;
      shapes.insert(shapes.begin(), {lookups, n.outputShape.back()});
    }
    for (const std::vector<int64_t> &s : shapes) {
      TracedTensor t;
      t.shape = s;
      t.dtype = "float";
      t.device = "cuda:0";
      t.tensorId = nextTensorId++;
      traced.inputs.push_back(std::move(t));
    }
    TracedTensor out;
    out.shape = n.outputShape;
    out.dtype = dtypeName(type).str();
    out.device = "cuda:0";
    out.tensorId = nextTensorId++;
    traced.outputs.push_back(out);
    std::vector<DeviceWork> work;
    if (StringRef(aten).starts_with("module:") ||
        !inferOpKernels(traced, 1, work)) {
      ++unknown;
      if (unknownList.size() < 200)
        unknownList +=
            (unknownList.empty() ? "" : ", ") + n.name + " (" + aten + ")";
      return;
    }

    SmallVector<Value> operands;
    for (const std::string &in : n.inputs)
      if (Value v = values.lookup(in))
        operands.push_back(v);
    SmallVector<int64_t> dims(n.outputShape.begin(), n.outputShape.end());
    Type result =
        RankedTensorType::get(dims, getElementType(b.getContext(), type));
    std::string name = layerPrefix.empty() || n.layer.empty()
                           ? n.name
                           : layerPrefix.str() + ":" + n.name;
    Location loc = NameLoc::get(
        b.getStringAttr(name),
        FileLineColLoc::get(b.getContext(),
                            cast<FileLineColLoc>(fileLoc).getFilename(), n.line,
                            1));
    auto op = FrameworkOp::create(b, loc, TypeRange{result},
                                  b.getStringAttr(traced.name), operands,
                                  b.getI64IntegerAttr(0));
    op->setAttr("fx.node", b.getStringAttr(n.name));
    if (currentLayer >= 0)
      op->setAttr(kLayerAttr, b.getI64IntegerAttr(currentLayer));
    op->setAttr(kFxForwardUsAttr, b.getF64FloatAttr(n.fwMs * 1000));
    if (n.bwMs > 0)
      op->setAttr(kFxBackwardUsAttr, b.getF64FloatAttr(n.bwMs * 1000));
    values[n.name] = op.getResult(0);
    size_t kernels = 0;
    for (const DeviceWork &w : work)
      kernels += std::holds_alternative<KernelDesc>(w);
    if (kernels) {
      SmallVector<WorkAttr> built;
      for (const DeviceWork &w : work) {
        const auto *k = std::get_if<KernelDesc>(&w);
        if (!k || kernelBeyondLimits)
          continue; // Beyond the limits: reported once; the import fails.
        FailureOr<WorkAttr> kernel = buildKernelWork(b.getContext(), *k, [&] {
          return emitError(loc)
                 << "node '" << n.name << "' (" << traced.name << "): ";
        });
        if (failed(kernel))
          kernelBeyondLimits = true;
        else if (*kernel)
          built.push_back(*kernel);
      }
      op.setWorkList(built);
      if (measured && !built.empty())
        measuredNodes.push_back({op, n.fwMs * 1000});
    }
    forward.push_back({op, n.bwMs});
  }

  /// NeuSight timed each node alone between two CUDA events, so every node
  /// time carries an isolated launch that kernels queued back to back in a
  /// step do not wait for: the node's kernels share its time less that
  /// launch, as the cost models split the isolated kernel measurements they
  /// are fitted on (splitIsolatedCost, with the fastest node as the launch).
  void removeIsolatedLaunches() {
    launchUs = 0;
    for (const auto &[node, us] : measuredNodes)
      if (us > 0 && (launchUs == 0 || us < launchUs))
        launchUs = us;
    for (auto [op, us] : measuredNodes) {
      double streamed = splitIsolatedCost(us, launchUs).latencyUs;
      SmallVector<WorkAttr> kernels(op.getWorkList());
      for (WorkAttr &kernel : kernels)
        kernel = kernel.with([&](NamedAttrList &attrs) {
          attrs.set(kLatencyAttr, b.getF64FloatAttr(streamed / kernels.size()));
          attrs.set(kCostModelAttr, b.getStringAttr("measured"));
        });
      op.setWorkList(kernels);
    }
  }

  /// The measured backward: per node with a backward time, in reverse
  /// order, one kernel of that time, waiting for the node's output.
  void emitMeasuredBackward() {
    Value grad;
    for (Emitted &e : llvm::reverse(forward)) {
      if (e.bwMs <= 0)
        continue;
      SmallVector<Value> operands{e.op.getResult(0)};
      if (grad)
        operands.push_back(grad);
      auto bwd = FrameworkOp::create(
          b, e.op.getLoc(),
          TypeRange{RankedTensorType::get({1}, b.getF32Type())},
          b.getStringAttr(e.op.getOpName().str() + ".backward"), operands,
          b.getI64IntegerAttr(0));
      if (Attribute layer = e.op->getAttr(kLayerAttr))
        bwd->setAttr(kLayerAttr, layer);
      // The node's backward is timed as a whole; its kernel carries twice
      // the forward kernels' FLOPs and bytes (a backward does about twice
      // the forward's work, at the same arithmetic intensity), so that
      // moving the step to another GPU scales it as the forward scales,
      // instead of keeping the source GPU's time.
      KernelDesc d;
      d.pass = KernelPass::BackwardData;
      for (WorkAttr fwd : e.op.getWorkList()) {
        if (!fwd.isKernel())
          continue;
        KernelDesc f = fwd.getKernelDesc();
        if (d.flops == 0 && d.bytes == 0)
          d.dtype = f.dtype;
        d.flops += 2 * f.totalFlops();
        d.bytes += 2 * f.totalBytes();
      }
      FailureOr<WorkAttr> kernel = buildKernelWork(b.getContext(), d, [&] {
        return e.op.emitError("the measured backward: ");
      });
      if (failed(kernel)) {
        kernelBeyondLimits = true;
      } else if (*kernel) {
        bwd.appendWork(*kernel);
        measuredNodes.push_back({bwd, e.bwMs * 1000});
      }
      grad = bwd.getResult(0);
    }
    graph.setPhase("training");
  }
};

/// num_layer of the label JSON beside `csvPath` (x.csv.gz -> x.json).
std::optional<int64_t> labelLayers(StringRef csvPath) {
  std::string json = csvPath.str();
  for (StringRef ext : {".gz", ".csv"})
    if (StringRef(json).ends_with(ext))
      json.resize(json.size() - ext.size());
  json += ".json";
  if (!llvm::sys::fs::exists(json))
    return std::nullopt;
  auto value = readJsonFile(json);
  if (!value) {
    llvm::consumeError(value.takeError());
    return std::nullopt;
  }
  if (const llvm::json::Object *o = value->getAsObject())
    return o->getInteger("num_layer");
  return std::nullopt;
}
} // namespace

OwningOpRef<ModuleOp> perf::importFxCsv(MLIRContext *ctx, StringRef contents,
                                        StringRef path,
                                        const FxImportOptions &options) {
  ctx->loadDialect<PerfDialect>();
  Location loc = FileLineColLoc::get(ctx, path, 1, 1);
  llvm::Expected<std::string> text = perf::inflateIfGzipped(contents, path);
  if (!text) {
    emitError(loc) << llvm::toString(text.takeError());
    return nullptr;
  }
  llvm::Expected<std::vector<FxNode>> nodes = parseFxCsv(*text, path);
  if (!nodes) {
    emitError(loc) << llvm::toString(nodes.takeError());
    return nullptr;
  }
  int64_t layers = options.numLayers;
  if (layers <= 0)
    layers = labelLayers(path).value_or(1);
  bool training =
      options.phase == "training" ||
      (options.phase.empty() &&
       llvm::any_of(*nodes, [](const FxNode &n) { return n.bwMs > 0; }));
  // The GPU of the measurements: named, else the label folder's.
  std::optional<GpuSpec> device;
  if (!options.measuredDevice.empty()) {
    llvm::Expected<GpuSpec> named = lookupGpuOrError(options.measuredDevice);
    if (!named) {
      emitError(UnknownLoc::get(ctx))
          << "--fx-device: " << llvm::toString(named.takeError());
      return nullptr;
    }
    device = *named;
  } else if (const GpuSpec *folder = lookupGpu(llvm::sys::path::filename(
                 llvm::sys::path::parent_path(path)))) {
    device = *folder;
  }
  FxStepBuilder builder(ctx, loc, options.measured, training);
  OwningOpRef<ModuleOp> module = builder.build(*nodes, layers);
  if (!module)
    return nullptr;
  if (device) {
    auto gpu = GpuAttr::get(ctx, *device);
    for (GraphOp graph : module->getOps<GraphOp>()) {
      graph.setTargetAttr(gpu);
      if (options.measured)
        graph->setAttr(kMeasuredOnAttr, gpu);
    }
  }
  if (options.measured)
    module->getOperation()->setAttr(
        "fx.launch_us",
        FloatAttr::get(Float64Type::get(ctx), builder.launchUs));
  if (builder.unknown)
    emitWarning(loc) << builder.unknown
                     << " fx nodes have no kernel rule and launch nothing: "
                     << builder.unknownList;
  module->getOperation()->setAttr("fx.source", StringAttr::get(ctx, path));
  if (training && !options.measured) {
    PassManager pm(ctx);
    SynthesizeTrainingOptions synth;
    synth.optimizer = "none";
    pm.addNestedPass<GraphOp>(createSynthesizeTraining(synth));
    if (failed(pm.run(*module)))
      return nullptr;
  }
  return module;
}

llvm::Expected<StepKernelMeasurements>
perf::readFxNodeMeasurements(StringRef path, StringRef device) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readInputFile(path);
  if (!buffer)
    return buffer.takeError();
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  CollectedErrors errors(&ctx);
  FxImportOptions options;
  options.numLayers = 1;
  options.phase = "inference";
  options.measuredDevice = device.str();
  OwningOpRef<ModuleOp> module =
      importFxCsv(&ctx, (*buffer)->getBuffer(), path, options);
  // The importer's errors name the file and line already.
  if (!module)
    return llvm::createStringError(errors.text());
  StepKernelMeasurements measured;
  for (GraphOp graph : module->getOps<GraphOp>()) {
    GpuAttr gpu = graph.getGpuTarget();
    if (!gpu)
      return fileError(path, "the GPU its nodes were measured on is not "
                             "known: name it (a catalog GPU), or keep the "
                             "CSV in a label folder named after it");
    measured.device = gpu.getSpec();
    graph.walk([&](FrameworkOp node) {
      auto fwUs = node->getAttrOfType<FloatAttr>(kFxForwardUsAttr);
      if (!fwUs || fwUs.getValueAsDouble() <= 0)
        return;
      auto kernels = llvm::make_filter_range(
          node.getWorkList(), [](WorkAttr w) { return w.isKernel(); });
      if (std::distance(kernels.begin(), kernels.end()) != 1)
        return;
      KernelMeasurement row;
      row.kernel = (*kernels.begin()).getKernelDesc();
      row.device = gpu.getSpec().name;
      row.op = node.getOpName().str();
      row.latencyUs = fwUs.getValueAsDouble();
      row.file = path.str();
      row.source = "fx";
      if (auto loc = dyn_cast<NameLoc>(node.getLoc()))
        if (auto line = dyn_cast<FileLineColLoc>(loc.getChildLoc()))
          row.line = line.getLine();
      measured.rows.push_back(std::move(row));
    });
  }
  return measured;
}

void perf::registerFxCsvImportTranslation() {
  static llvm::cl::OptionCategory category("--import-fx-csv options");
  static llvm::cl::opt<int64_t> numLayer(
      "num-layer",
      llvm::cl::desc("Times the graph's transformer block repeats (fx CSV "
                     "import; default: num_layer of the label JSON beside "
                     "the CSV, else 1)"),
      llvm::cl::init(0), llvm::cl::cat(category));
  static llvm::cl::opt<bool> fxMeasured(
      "fx-measured",
      llvm::cl::desc("Keep each node's measured time on its kernels (fx CSV "
                     "import; =false to price them with the cost models)"),
      llvm::cl::init(true), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> fxDevice(
      "fx-device",
      llvm::cl::desc("GPU the fx CSV's node times were measured on (fx CSV "
                     "import; default: the label folder holding the CSV)"),
      llvm::cl::cat(category));
  registerImportTranslation(
      "import-fx-csv",
      "Import a NeuSight per-node torch.fx CSV (.csv or .csv.gz)",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         MLIRContext *ctx) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        FxImportOptions options;
        if (numLayer < 0) {
          emitError(UnknownLoc::get(ctx))
              << "--num-layer must be positive, got " << numLayer;
          return nullptr;
        }
        options.numLayers = numLayer;
        options.measured = fxMeasured;
        options.measuredDevice = fxDevice;
        OwningOpRef<ModuleOp> module = importFxCsv(
            ctx, buffer->getBuffer(), buffer->getBufferIdentifier(), options);
        if (!module)
          return nullptr;
        return OwningOpRef<Operation *>(module.release());
      });
}
