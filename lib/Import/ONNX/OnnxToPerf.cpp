//===- OnnxToPerf.cpp - Build the perf dialect from an ONNX model ---------===//
//
// One perf.op per ONNX node that does runtime work or carries data
// (metadata ops such as Reshape stay, with no kernels, so dependencies run
// through them). Weights and nodes computing only from constants (the
// ConstantOfShape stand-ins of stripped models) are folded away: they are
// ready before the step starts. Each op records the parameters it reads in
// `onnx.params`, which training synthesis uses for gradients and updates.
//
//===----------------------------------------------------------------------===//

#include "perf/Dialect/InputDiagnostics.h"
#include "perf/Import/ImportTranslation.h"
#include "perf/Import/OnnxImport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "perf/Dialect/PerfDialect.h"
#include "perf/Dialect/PerfOps.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"

using namespace perf;
using namespace mlir;

static Type elementTypeOf(MLIRContext *ctx, const OnnxValueInfo &v) {
  Builder b(ctx);
  switch (v.elemType) {
  case 10: // FLOAT16
    return b.getF16Type();
  case 16: // BFLOAT16
    return b.getBF16Type();
  case 11: // DOUBLE
    return b.getF64Type();
  case 7: // INT64
  case 13:
    return b.getI64Type();
  case 6: // INT32
  case 12:
    return b.getI32Type();
  case 2: // UINT8
  case 3: // INT8
    return b.getI8Type();
  case 4: // UINT16
  case 5:
    return b.getIntegerType(16);
  case 9: // BOOL
    return b.getI1Type();
  default:
    return b.getF32Type();
  }
}

static Type tensorTypeOf(MLIRContext *ctx, const OnnxValueInfo *v) {
  if (!v)
    return UnrankedTensorType::get(Float32Type::get(ctx));
  Type elem = elementTypeOf(ctx, *v);
  if (!v->hasShape)
    return UnrankedTensorType::get(elem);
  SmallVector<int64_t> dims;
  for (int64_t d : v->shape)
    dims.push_back(d < 0 ? ShapedType::kDynamic : d);
  return RankedTensorType::get(dims, elem);
}

/// The kernel of `kernel`; null when it has no work (shapes unknown),
/// failure when a size is beyond the dialect's limits (reported through
/// `emitError`).
static FailureOr<WorkAttr>
buildKernel(MLIRContext *ctx, const OnnxKernel &kernel,
            function_ref<InFlightDiagnostic()> emitError) {
  KernelDesc d = kernel.desc;
  if (d.totalFlops() <= 0 && d.totalBytes() <= 0)
    return WorkAttr();
  // The role names the kernel's operation ("conv", "bias", "relu").
  d.op = kernel.role;
  d.tensorCores = runsOnTensorCores(d.kind, d.dtype);
  if (d.kind == KernelKind::BatchNorm)
    d.c = std::max<int64_t>(d.c, 1);
  // Kinds the dialect has no typed op for here are priced by their work.
  if (d.kind == KernelKind::Attention || d.kind == KernelKind::EmbeddingBag ||
      d.kind == KernelKind::Memcpy || d.kind == KernelKind::Optimizer) {
    d.flops = d.totalFlops();
    d.bytes = d.totalBytes();
    d.kind = KernelKind::Generic;
  }
  return buildKernelWork(ctx, d, emitError);
}

OwningOpRef<ModuleOp>
perf::buildPerfModuleFromOnnx(MLIRContext *ctx, const OnnxModel &model,
                              const OnnxLowering &lowering,
                              const OnnxImportOptions &options) {
  ctx->loadDialect<PerfDialect>();
  const OnnxGraph &g = model.graph;
  Location fileLoc = FileLineColLoc::get(ctx, model.path, 0, 0);
  OpBuilder b(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  module->getOperation()->setAttr("onnx.source", b.getStringAttr(model.path));
  module->getOperation()->setAttr("onnx.batch",
                                  b.getI64IntegerAttr(model.batchSize));
  module->getOperation()->setAttr("onnx.parameters",
                                  b.getI64IntegerAttr(lowering.numParameters));
  // Benanza's per-model figures, before any transform changes the kernels.
  double macs = 0, flops = 0;
  for (const OnnxLoweredNode &ln : lowering.nodes)
    for (const OnnxKernel &k : ln.kernels) {
      macs += kernelMacs(k.desc);
      flops += k.desc.totalFlops();
    }
  // Shapes that pass every per-tensor limit can still multiply past what a
  // 64-bit count holds; such a model is no step a GPU runs.
  if (!(flops < 0x1p63 && macs < 0x1p63)) {
    emitError(fileLoc) << "the model's work (" << llvm::formatv("{0:e}", flops)
                       << " FLOPs, " << llvm::formatv("{0:e}", macs)
                       << " MACs) does not fit a 64-bit count; check its "
                          "input shapes and --onnx-batch";
    return nullptr;
  }
  module->getOperation()->setAttr(
      "onnx.macs", b.getI64IntegerAttr(static_cast<int64_t>(macs)));
  module->getOperation()->setAttr(
      "onnx.flops", b.getI64IntegerAttr(static_cast<int64_t>(flops)));

  b.setInsertionPointToEnd(module->getBody());
  auto graph = GraphOp::create(b, fileLoc, "step");
  graph.setPhase("inference");
  b.setInsertionPointToEnd(&graph.getBodyBlock());

  // Values known before the step runs: weights, constants and everything
  // computed only from them.
  // A copy of another weight (a tied LM head) is read like a parameter, so
  // its reader computes a weight gradient, but it is the other parameter:
  // that gradient is accumulated into the other's, not updated again.
  llvm::StringMap<int64_t> paramElems, tiedElems;
  for (const auto &[name, count] : lowering.parameters) {
    paramElems[name] = count;
    if (const OnnxValueInfo *v = g.lookup(name); !v->duplicateOf.empty())
      tiedElems[name] = count;
  }
  llvm::StringSet<> constant;
  for (const std::string &name : g.initializers)
    constant.insert(name);
  for (const auto &entry : paramElems)
    constant.insert(entry.getKey());

  llvm::StringMap<Value> ssa;
  for (const std::string &name : g.inputs) {
    if (constant.count(name))
      continue;
    const OnnxValueInfo *v = g.lookup(name);
    OperationState state(NameLoc::get(b.getStringAttr(name), fileLoc),
                         FrameworkOp::getOperationName());
    state.addAttribute("op_name", b.getStringAttr("onnx::Input"));
    state.addAttribute("onnx.name", b.getStringAttr(name));
    state.addTypes(tensorTypeOf(ctx, v));
    Operation *op = b.create(state);
    ssa[name] = op->getResult(0);
  }

  unsigned skippedKernels = 0;
  for (const OnnxLoweredNode &ln : lowering.nodes) {
    const OnnxNode &n = *ln.node;
    bool allConstant = ln.kernels.empty() && ln.supported;
    for (const std::string &in : n.inputs)
      if (!in.empty() && !constant.count(in))
        allConstant = false;
    if (allConstant) {
      // Pass parameter ownership through (Unsqueeze of a BN scale).
      for (const std::string &out : n.outputs)
        constant.insert(out);
      int64_t carried = 0, carriedTied = 0;
      for (const std::string &in : n.inputs) {
        if (auto it = paramElems.find(in); it != paramElems.end()) {
          carried += it->second;
          paramElems.erase(it);
        }
        if (auto it = tiedElems.find(in); it != tiedElems.end()) {
          carriedTied += it->second;
          tiedElems.erase(it);
        }
      }
      if (carried && !n.outputs.empty())
        paramElems[n.outputs[0]] += carried;
      if (carriedTied && !n.outputs.empty())
        tiedElems[n.outputs[0]] += carriedTied;
      continue;
    }
    SmallVector<Value> operands;
    int64_t params = 0, tied = 0;
    for (const std::string &in : n.inputs) {
      if (in.empty())
        continue;
      if (auto it = ssa.find(in); it != ssa.end())
        operands.push_back(it->second);
      // Each parameter is charged to its first reader.
      if (auto it = paramElems.find(in); it != paramElems.end()) {
        params += it->second;
        paramElems.erase(it);
      }
      if (auto it = tiedElems.find(in); it != tiedElems.end()) {
        tied += it->second;
        tiedElems.erase(it);
      }
    }
    SmallVector<Type> results;
    for (const std::string &out : n.outputs)
      results.push_back(
          tensorTypeOf(ctx, out.empty() ? nullptr : g.lookup(out)));
    Location loc = NameLoc::get(b.getStringAttr(n.name), fileLoc);
    std::string opName =
        (n.domain.empty() ? "onnx::" : n.domain + "::") + n.opType;
    OperationState state(loc, FrameworkOp::getOperationName());
    state.addOperands(operands);
    state.addTypes(results);
    state.addAttribute("op_name", b.getStringAttr(opName));
    state.addAttribute("onnx.name", b.getStringAttr(n.name));
    if (params)
      state.addAttribute("onnx.params", b.getI64IntegerAttr(params));
    if (tied)
      state.addAttribute("onnx.tied_params", b.getI64IntegerAttr(tied));
    if (!ln.supported)
      state.addAttribute("onnx.unsupported", b.getUnitAttr());
    if (ln.trainingDropout)
      state.addAttribute(kTrainingDropoutAttr, b.getUnitAttr());
    if (!ln.fusedInto.empty())
      state.addAttribute("onnx.fused_into", b.getStringAttr(ln.fusedInto));
    auto op = cast<FrameworkOp>(b.create(state));
    for (unsigned i = 0; i < n.outputs.size(); ++i)
      if (!n.outputs[i].empty())
        ssa[n.outputs[i]] = op->getResult(i);
    if (ln.kernels.empty())
      continue;
    SmallVector<WorkAttr> work;
    for (const OnnxKernel &k : ln.kernels) {
      // Shapes within the tensor limits can still make a kernel size above
      // max-extent; pricing without it would be a silent wrong answer.
      FailureOr<WorkAttr> kernel = buildKernel(ctx, k, [&] {
        return emitError(loc)
               << "node '" << n.name << "' (" << n.opType << "): its " << k.role
               << " kernel is beyond the limits: ";
      });
      if (failed(kernel))
        return nullptr;
      if (*kernel)
        work.push_back(*kernel);
      else
        ++skippedKernels;
    }
    op.setWorkList(work);
  }

  if (skippedKernels)
    emitWarning(fileLoc) << skippedKernels
                         << " kernels have unknown shapes and are not priced";
  if (!lowering.unsupported.empty()) {
    std::string list;
    unsigned total = 0;
    for (const auto &[opType, count] : lowering.unsupported) {
      list +=
          (list.empty() ? "" : ", ") + opType + " x" + std::to_string(count);
      total += count;
    }
    SmallVector<NamedAttribute> counts;
    for (const auto &[opType, count] : lowering.unsupported)
      counts.push_back(b.getNamedAttr(opType, b.getI64IntegerAttr(count)));
    module->getOperation()->setAttr("onnx.unsupported",
                                    b.getDictionaryAttr(counts));
    if (options.strict) {
      emitError(fileLoc) << total << " nodes have no lowering: " << list;
      return nullptr;
    }
    emitWarning(fileLoc) << total
                         << " nodes have no lowering and cost nothing: "
                         << list;
  }
  return module;
}

OwningOpRef<ModuleOp> perf::importOnnxFile(MLIRContext *ctx, StringRef path,
                                           const OnnxImportOptions &options) {
  OnnxLoadOptions load;
  load.batchSize = options.batchSize;
  load.sequenceLength = options.sequenceLength;
  auto model = loadOnnxModel(path, load);
  if (!model) {
    emitInputError(UnknownLoc::get(ctx), model.takeError());
    return nullptr;
  }
  OnnxLowering lowering = lowerOnnxModel(*model);
  return buildPerfModuleFromOnnx(ctx, *model, lowering, options);
}

void perf::registerOnnxImportTranslation() {
  static llvm::cl::opt<int64_t> batch(
      "onnx-batch",
      llvm::cl::desc("Batch size to re-infer ONNX shapes with (default: the "
                     "model's)"),
      llvm::cl::init(0));
  static llvm::cl::opt<int64_t> seq(
      "onnx-seq",
      llvm::cl::desc("Sequence length (dim 1 of the inputs) to re-infer ONNX "
                     "shapes with"),
      llvm::cl::init(0));
  static llvm::cl::opt<bool> strict(
      "onnx-strict", llvm::cl::desc("Fail when an ONNX op has no lowering"),
      llvm::cl::init(false));
  registerImportTranslation(
      "import-onnx", "Import an ONNX model (.onnx) as a perf.graph",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         MLIRContext *ctx) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        // Given, a size must be one to use; not given, the model's stands.
        for (auto *option : {&batch, &seq})
          if (option->getNumOccurrences() && *option <= 0) {
            emitError(UnknownLoc::get(ctx))
                << "--" << option->ArgStr << " must be positive, got "
                << int64_t(*option);
            return nullptr;
          }
        OnnxLoadOptions load;
        load.batchSize = batch;
        load.sequenceLength = seq;
        std::string name = buffer->getBufferIdentifier().str();
        if (name.empty() || name == "<stdin>")
          name = "<stdin>";
        auto model = loadOnnxModelFromBuffer(buffer->getBuffer(), name, load);
        if (!model) {
          emitInputError(UnknownLoc::get(ctx), model.takeError());
          return nullptr;
        }
        OnnxLowering lowering = lowerOnnxModel(*model);
        OnnxImportOptions options;
        options.batchSize = batch;
        options.sequenceLength = seq;
        options.strict = strict;
        OwningOpRef<ModuleOp> module =
            buildPerfModuleFromOnnx(ctx, *model, lowering, options);
        if (!module)
          return nullptr;
        return OwningOpRef<Operation *>(module.release());
      });
}
