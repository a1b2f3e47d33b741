//===- DistributedUtils.cpp - Helpers of the distributed passes -----------===//

#include "perf/Transforms/DistributedUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "perf/Dialect/InputDiagnostics.h"
#include "perf/Support/Limits.h"
#include "perf/Transforms/GraphTarget.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseSet.h"

using namespace perf;
using namespace mlir;

SystemSpec perf::singleNodeSystem(const GpuSpec &gpu, unsigned gpus) {
  SystemSpec s;
  s.name = "one node of " + gpu.name;
  s.source = "derived from the target GPU";
  s.nodes = 1;
  s.gpusPerNode = std::max(1u, gpus);
  s.gpu = gpu;
  s.hostPcie = defaultLink(LinkKind::PCIe4);
  if (gpu.pcieBandwidth > 0)
    s.hostPcie.bandwidth = gpu.pcieBandwidth;
  if (gpu.nvlinkBandwidth > 0) {
    s.intraNode = defaultLink(LinkKind::NVLink3);
    s.intraNode.kind = LinkKind::Custom;
    s.intraNode.bandwidth = gpu.nvlinkBandwidth;
    // NVLink to every other GPU of a node of more than two takes NVSwitch.
    s.nvSwitch = s.gpusPerNode > 2;
  } else {
    s.intraNode = s.hostPcie;
  }
  s.interNode = defaultLink(LinkKind::Ethernet100);
  return s;
}

void perf::MaxDeviceId::addWork(ArrayRef<WorkAttr> work) {
  for (WorkAttr w : work) {
    if (w.isKernel())
      maxId = std::max(maxId, w.getDeviceId());
    else
      for (int64_t d : w.getGroupIds())
        maxId = std::max(maxId, d);
  }
}

int64_t perf::maxDeviceId(GraphOp graph) {
  MaxDeviceId devices;
  // A step launches few distinct work lists: each is read once.
  llvm::DenseSet<ArrayAttr> seen;
  UnrolledWalk::forEachHostOp(graph, [&](Operation *op, int64_t) {
    auto fw = dyn_cast<FrameworkOp>(op);
    if (!fw)
      return;
    devices.addOpDevice(fw);
    if (seen.insert(fw.getWorkAttr()).second)
      devices.addWork(fw.getWorkList());
  });
  return devices.get();
}

FailureOr<SystemSpec> perf::getGraphSystem(GraphOp graph,
                                           StringRef presetOrPath,
                                           std::optional<int64_t> maxDevice) {
  if (!presetOrPath.empty()) {
    llvm::Expected<SystemSpec> spec = loadSystemSpec(presetOrPath);
    if (!spec) {
      emitInputError(graph.getLoc(), spec.takeError());
      return failure();
    }
    return *spec;
  }
  FailureOr<GpuSpec> gpu = getGraphGpu(graph);
  if (failed(gpu))
    return failure();
  int64_t devices = maxDevice ? *maxDevice : maxDeviceId(graph);
  return singleNodeSystem(*gpu, static_cast<unsigned>(devices + 1));
}

int64_t perf::elementBytes(Type type) {
  if (auto f = dyn_cast<FloatType>(type))
    return std::max<int64_t>(1, f.getWidth() / 8);
  if (auto i = dyn_cast<IntegerType>(type))
    return std::max<int64_t>(1, i.getWidth() / 8);
  return 4;
}

int64_t perf::tensorBytes(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape())
    return 0;
  double elements = 1;
  for (int64_t d : t.getShape())
    elements *= double(d);
  return saturatedBytes(elements * double(elementBytes(t.getElementType())));
}

int64_t perf::saturatedBytes(double bytes) {
  return int64_t(std::min(bytes, double(kMaxExtent.max + 1)));
}

bool perf::isForwardOp(FrameworkOp op) {
  return llvm::none_of(op.getWorkList(), [](WorkAttr w) {
    return w.isKernel() && w.getTrainingPass() != TrainingPass::Fwd;
  });
}

bool perf::isOptimizerOp(FrameworkOp op) {
  return llvm::any_of(op.getWorkList(), [](WorkAttr w) {
    return w.getKind() == WorkKind::Optimizer;
  });
}

WorkAttr perf::masterCopyBack(FrameworkOp op, size_t update) {
  ArrayRef<WorkAttr> work = op.getWorkList();
  if (update + 1 >= work.size())
    return {};
  auto optimizer = dyn_cast<OptimizerWork>(work[update]);
  if (!optimizer || !optimizer.getMasterWeights())
    return {};
  auto copyBack = dyn_cast<ElementwiseWork>(work[update + 1]);
  if (!copyBack || copyBack.getFn() != kMasterToModelFn)
    return {};
  return copyBack;
}

void perf::shareOptimizerUpdates(FrameworkOp op,
                                 llvm::function_ref<int64_t(int64_t)> share) {
  Builder b(op.getContext());
  SmallVector<WorkAttr> work;
  bool changed = false;
  for (size_t i = 0, e = op.getNumWork(); i < e; ++i) {
    auto optimizer = dyn_cast<OptimizerWork>(op.getWork(i));
    if (!optimizer) {
      work.push_back(op.getWork(i));
      continue;
    }
    changed = true;
    WorkAttr copyBack = masterCopyBack(op, i);
    int64_t elements = share(optimizer.getElements());
    if (copyBack)
      ++i;
    if (elements <= 0)
      continue;
    work.push_back(optimizer.withElements(elements));
    if (copyBack)
      work.push_back(cast<ElementwiseWork>(copyBack).withElements(elements));
  }
  if (changed)
    op.setWorkList(work);
}

DType perf::parameterDType(FrameworkOp op) {
  for (WorkAttr w : op.getWorkList())
    if (w.isKernel())
      return w.getKernelDesc().dtype;
  return DType::F32;
}

double perf::parameterElementBytes(FrameworkOp op) {
  return dtypeBytes(parameterDType(op));
}

int64_t perf::layoutDegree(GraphOp graph, StringRef attr) {
  auto degree = graph->getAttrOfType<IntegerAttr>(attr);
  return degree ? std::max<int64_t>(1, degree.getInt()) : 1;
}

bool perf::isExpertExchange(FrameworkOp op) {
  return hasDiscardable(op, kExpertExchangeAttr);
}

LogicalResult perf::refuseLaterLayouts(GraphOp graph, StringRef pass,
                                       StringRef own,
                                       ArrayRef<StringRef> later) {
  if (Attribute done = graph->getAttr(own))
    return graph.emitError()
           << pass << ": graph @" << graph.getSymName() << " already has "
           << own << " = " << done << "; give the pass once, with every device";
  for (StringRef layout : later)
    if (graph->hasAttr(layout))
      return graph.emitError()
             << pass << ": graph @" << graph.getSymName() << " already has "
             << layout
             << "; the layout passes compose as tensor (or expert), then "
                "pipeline, then data parallelism: run "
             << pass << " first";
  return success();
}

std::optional<int64_t> perf::layerOf(Operation *op) {
  if (auto a = getDiscardable<IntegerAttr>(op, kLayerAttr))
    return a.getInt();
  return std::nullopt;
}

std::optional<int64_t> perf::autogradPairOf(Operation *op) {
  if (auto a = getDiscardable<IntegerAttr>(op, kAutogradPairAttr))
    return a.getInt();
  return std::nullopt;
}

int64_t perf::gradientBytes(FrameworkOp op) {
  if (auto a = getDiscardable<IntegerAttr>(op, kGradBytesAttr))
    return a.getInt();
  // Summed in double and saturated one past max-extent: sizes within the
  // limits can still multiply past an int64, and the callers report the
  // limit.
  double bytes = 0;
  for (WorkAttr w : op.getWorkList()) {
    if (!w.isKernel() || w.getTrainingPass() != TrainingPass::Wgrad)
      continue;
    double elem = dtypeBytes(w.getKernelDesc().dtype);
    if (auto gemm = dyn_cast<GemmWork>(w))
      bytes += double(gemm.getM()) * double(gemm.getN()) * elem;
    else if (auto conv = dyn_cast<Conv2dWork>(w))
      bytes += double(conv.getK()) *
               double(conv.getC() / std::max<int64_t>(1, conv.getGroups())) *
               double(conv.getR()) * double(conv.getS()) * elem;
  }
  return saturatedBytes(bytes);
}

SmallVector<int64_t> perf::iotaGroup(int64_t n, int64_t first) {
  SmallVector<int64_t> g;
  for (int64_t i = 0; i < n; ++i)
    g.push_back(first + i);
  return g;
}

WorkAttr perf::makeCollectiveWork(MLIRContext *context, WorkKind kind,
                                  int64_t bytes, ArrayRef<int64_t> group,
                                  int64_t device, int64_t stream) {
  Builder b(context);
  NamedAttrList attrs;
  attrs.append("bytes", b.getI64IntegerAttr(bytes));
  attrs.append("group", b.getDenseI64ArrayAttr(group));
  // Device and stream 0, the defaults, are left out by WorkAttr::get.
  attrs.append("device", b.getI64IntegerAttr(device));
  attrs.append("stream", b.getI64IntegerAttr(stream));
  return WorkAttr::get(context, kind, attrs.getDictionary(context));
}

FrameworkOp perf::createCommOp(OpBuilder &b, Location loc, StringRef name,
                               ValueRange inputs, int64_t device,
                               ArrayRef<WorkAttr> work) {
  SmallVector<Type> types(inputs.getTypes());
  auto op = FrameworkOp::create(b, loc, types, b.getStringAttr(name), inputs,
                                b.getI64IntegerAttr(device));
  op.setWorkList(work);
  return op;
}

Value perf::ensureResult(FrameworkOp &op) {
  if (op->getNumResults() > 0)
    return op->getResult(0);
  OpBuilder b(op);
  SmallVector<Type> types{b.getNoneType()};
  auto rebuilt = FrameworkOp::create(b, op.getLoc(), types, op.getOpNameAttr(),
                                     op.getInputs(), op.getDeviceAttr());
  // The dictionary holds the inherent attributes too, the work list among
  // them.
  rebuilt->setAttrs(op->getAttrDictionary());
  op->erase();
  op = rebuilt;
  return rebuilt->getResult(0);
}

int64_t perf::declaredTiedParameters(FrameworkOp op) {
  if (auto a = getDiscardable<mlir::IntegerAttr>(op, "onnx.tied_params"))
    return a.getInt();
  return 0;
}

std::optional<int64_t> perf::declaredParameters(FrameworkOp op) {
  for (llvm::StringRef name :
       {llvm::StringRef(kParamsAttr), llvm::StringRef("onnx.params")})
    if (auto a = getDiscardable<mlir::IntegerAttr>(op, name))
      return a.getInt();
  if (hasDiscardable(op, "onnx.name"))
    return 0;
  return std::nullopt;
}
