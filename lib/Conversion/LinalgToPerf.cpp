//===- LinalgToPerf.cpp - --perf-convert-linalg ---------------------------===//
//
// Classifies each linalg op by its indexing maps (contraction, convolution,
// all-parallel, reduction) rather than by name, so linalg.generic ops that
// are matmuls or convolutions are priced as such.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "perf/Conversion/Passes.h"
#include "perf/Dialect/PerfOps.h"

namespace perf {
#define GEN_PASS_DEF_CONVERTLINALGTOPERF
#include "perf/Conversion/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {

int64_t product(ArrayRef<int64_t> ranges, ArrayRef<unsigned> dims) {
  int64_t p = 1;
  for (unsigned d : dims)
    p *= ranges[d];
  return p;
}

Type elementTypeOf(Value v) { return getElementTypeOrSelf(v.getType()); }

/// Ops in the payload other than the terminator: the FLOPs per point.
double payloadOps(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (!body)
    return 1;
  return std::max<double>(
      1.0, static_cast<double>(body->getOperations().size()) - 1);
}

/// The kernel of one linalg op, classified by its indexing maps.
KernelDesc describeLinalg(linalg::LinalgOp op, ArrayRef<int64_t> ranges,
                          Type elementType) {
  KernelDesc d;
  d.dtype = getDType(elementType);
  int64_t points =
      product(ranges, llvm::to_vector(llvm::seq<unsigned>(0, ranges.size())));

  if (isa<linalg::TransposeOp>(op)) {
    d.kind = KernelKind::Transpose;
    d.numElements = points;
    return d;
  }
  if (isa<linalg::CopyOp>(op)) {
    d.kind = KernelKind::Memcpy;
    d.bytes = static_cast<double>(
        points * std::max<int64_t>(
                     1, elementType.isIntOrFloat()
                            ? elementType.getIntOrFloatBitWidth() / 8
                            : 4));
    return d;
  }
  // Pooling and convolution windows: linalg reads an already padded input.
  auto setWindow = [&](const linalg::ConvolutionDimensions &dims) {
    int64_t oh = ranges[dims.outputImage[0]], ow = ranges[dims.outputImage[1]];
    d.r = ranges[dims.filterLoop[0]];
    d.s = ranges[dims.filterLoop[1]];
    d.strideH = dims.strides[0];
    d.strideW = dims.strides[1];
    d.h = (oh - 1) * d.strideH + dims.dilations[0] * (d.r - 1) + 1;
    d.w = (ow - 1) * d.strideW + dims.dilations[1] * (d.s - 1) + 1;
    return oh * ow;
  };
  if (op->getName().getStringRef().starts_with("linalg.pooling_")) {
    FailureOr<linalg::ConvolutionDimensions> dims =
        linalg::inferConvolutionDims(op);
    if (succeeded(dims) && dims->outputImage.size() == 2 &&
        dims->filterLoop.size() == 2) {
      d.kind = KernelKind::Pooling;
      int64_t outPoints = setWindow(*dims);
      d.batch = 1;
      d.c = points / (outPoints * d.r * d.s);
      return d;
    }
  }
  if (linalg::isaContractionOpInterface(op)) {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (succeeded(dims)) {
      d.kind = KernelKind::Gemm;
      d.batch = product(ranges, dims->batch);
      d.m = product(ranges, dims->m);
      d.n = product(ranges, dims->n);
      d.k = product(ranges, dims->k);
      return d;
    }
  }
  if (linalg::isaConvolutionOpInterface(op)) {
    FailureOr<linalg::ConvolutionDimensions> dims =
        linalg::inferConvolutionDims(op);
    if (succeeded(dims) && dims->outputImage.size() == 2 &&
        dims->filterLoop.size() == 2) {
      d.kind = KernelKind::Conv2d;
      setWindow(*dims);
      d.groups = product(ranges, dims->depth);
      d.dilationH = dims->dilations[0];
      d.dilationW = dims->dilations[1];
      d.batch = product(ranges, dims->batch);
      d.c = d.groups * product(ranges, dims->inputChannel);
      d.outChannels = d.groups * product(ranges, dims->outputChannel);
      return d;
    }
  }
  if (op.getNumReductionLoops() == 0) {
    d.kind = KernelKind::Elementwise;
    d.numElements = points;
    d.numInputs = op.getNumDpsInputs();
    d.flopsPerElement = isa<linalg::FillOp>(op) ? 0.0 : payloadOps(op);
    d.op = op->getName().stripDialect().str();
    return d;
  }
  SmallVector<unsigned> parallel, reduction;
  op.getParallelDims(parallel);
  op.getReductionDims(reduction);
  d.kind = KernelKind::Reduce;
  d.rows = product(ranges, parallel);
  d.cols = product(ranges, reduction);
  return d;
}

LogicalResult lowerLinalg(OpBuilder &b, FrameworkOp fw, linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return op->emitOpError("has a dynamic shape; --perf-convert-linalg needs "
                           "static loop ranges");
  Type elementType =
      op.getNumDpsInits() ? elementTypeOf(op.getDpsInits()[0]) : b.getF32Type();
  KernelDesc desc = describeLinalg(op, ranges, elementType);
  FailureOr<WorkAttr> built = buildKernelWork(b.getContext(), desc, [&] {
    return op->emitOpError("describes a kernel beyond the limits: ");
  });
  if (failed(built))
    return failure();
  WorkAttr kernel = *built;
  if (!kernel)
    return op->emitOpError("describes an empty ")
           << kernelKindName(desc.kind) << " kernel";
  fw.appendWork(kernel);
  return success();
}

struct ConvertLinalgToPerfPass
    : perf::impl::ConvertLinalgToPerfBase<ConvertLinalgToPerfPass> {
  using ConvertLinalgToPerfBase::ConvertLinalgToPerfBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (phase != "inference" && phase != "training") {
      module.emitError("phase must be inference or training, got '")
          << phase << "'";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp f : funcs) {
      if (f.isExternal())
        continue;
      if (failed(convert(f)))
        return signalPassFailure();
    }
  }

  LogicalResult convert(func::FuncOp f) {
    if (!f.getBody().hasOneBlock())
      return f.emitOpError("has control flow; --perf-convert-linalg needs a "
                           "single block");
    OpBuilder b(f);
    std::string name = f.getSymName().str();
    auto graph = GraphOp::create(b, f.getLoc(), name);
    graph.setPhase(phase);
    b.setInsertionPointToStart(&graph.getBodyBlock());

    IRMapping values;
    if (f.getNumArguments() != 0) {
      auto inputs = FrameworkOp::create(b, f.getLoc(), f.getArgumentTypes(),
                                        b.getStringAttr("input"), ValueRange{},
                                        b.getI64IntegerAttr(0));
      values.map(f.getArguments(), inputs.getResults());
    }

    unsigned skipped = 0;
    for (Operation &op : f.getBody().front()) {
      if (isa<func::ReturnOp>(op))
        continue;
      // Reshapes and casts move no data: their results stand for the
      // producer's.
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp,
              tensor::ReshapeOp>(op)) {
        if (Value src = values.lookupOrNull(op.getOperand(0)))
          values.map(op.getResult(0), src);
        continue;
      }
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      auto softmax = dyn_cast<linalg::SoftmaxOp>(op);
      if (!linalgOp && !softmax) {
        // Constants, tensor.empty and other ops without device work.
        if (!isMemoryEffectFree(&op) || op.getNumRegions() != 0) {
          op.emitWarning("has no perf lowering; its work is not priced");
          ++skipped;
        }
        continue;
      }
      SmallVector<Value> inputs;
      for (Value operand : op.getOperands())
        if (Value mapped = values.lookupOrNull(operand))
          if (!llvm::is_contained(inputs, mapped))
            inputs.push_back(mapped);
      auto fw =
          FrameworkOp::create(b, op.getLoc(), op.getResultTypes(),
                              b.getStringAttr(op.getName().getStringRef()),
                              inputs, b.getI64IntegerAttr(0));
      values.map(op.getResults(), fw.getResults());
      if (softmax) {
        auto type = cast<ShapedType>(softmax.getInput().getType());
        if (!type.hasStaticShape())
          return softmax.emitOpError("has a dynamic shape; "
                                     "--perf-convert-linalg needs static "
                                     "shapes");
        int64_t cols = type.getDimSize(softmax.getDimension());
        KernelDesc d;
        d.kind = KernelKind::Softmax;
        d.dtype = getDType(type.getElementType());
        d.rows = type.getNumElements() / cols;
        d.cols = cols;
        FailureOr<WorkAttr> kernel = buildKernelWork(b.getContext(), d, [&] {
          return softmax.emitOpError("describes a kernel beyond the limits: ");
        });
        if (failed(kernel))
          return failure();
        if (*kernel)
          fw.appendWork(*kernel);
        continue;
      }
      if (failed(lowerLinalg(b, fw, linalgOp)))
        return failure();
    }
    (void)skipped;
    f.erase();
    return success();
  }
};
} // namespace
