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

/// Builds one kernel op by name with its attributes.
struct KernelBuilder {
  OpBuilder &b;
  Location loc;
  OperationState state;

  KernelBuilder(OpBuilder &b, Location loc, StringRef name)
      : b(b), loc(loc), state(loc, name) {}
  KernelBuilder &i64(StringRef name, int64_t v) {
    state.addAttribute(name, b.getI64IntegerAttr(v));
    return *this;
  }
  KernelBuilder &f64(StringRef name, double v) {
    state.addAttribute(name, b.getF64FloatAttr(v));
    return *this;
  }
  KernelBuilder &str(StringRef name, StringRef v) {
    state.addAttribute(name, b.getStringAttr(v));
    return *this;
  }
  KernelBuilder &pair(StringRef name, int64_t h, int64_t w) {
    state.addAttribute(name, b.getDenseI64ArrayAttr({h, w}));
    return *this;
  }
  KernelBuilder &dtype(Type type) {
    if (type.isIntOrFloat())
      state.addAttribute("dtype", TypeAttr::get(type));
    return *this;
  }
  Operation *create() { return b.create(state); }
};

Type elementTypeOf(Value v) { return getElementTypeOrSelf(v.getType()); }

/// Ops in the payload other than the terminator: the FLOPs per point.
double payloadOps(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (!body)
    return 1;
  return std::max<double>(
      1.0, static_cast<double>(body->getOperations().size()) - 1);
}

LogicalResult lowerLinalg(OpBuilder &b, linalg::LinalgOp op) {
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return op->emitOpError("has a dynamic shape; --perf-convert-linalg needs "
                           "static loop ranges");
  Type dtype =
      op.getNumDpsInits() ? elementTypeOf(op.getDpsInits()[0]) : b.getF32Type();
  int64_t points =
      product(ranges, llvm::to_vector(llvm::seq<unsigned>(0, ranges.size())));

  if (isa<linalg::TransposeOp>(op)) {
    KernelBuilder(b, loc, TransposeOp::getOperationName())
        .i64("elements", points)
        .dtype(dtype)
        .create();
    return success();
  }
  if (isa<linalg::CopyOp>(op)) {
    int64_t bytes =
        points * std::max<int64_t>(1, dtype.getIntOrFloatBitWidth() / 8);
    KernelBuilder(b, loc, MemcpyOp::getOperationName())
        .i64("bytes", bytes)
        .str("kind", "d2d")
        .dtype(dtype)
        .create();
    return success();
  }
  if (op->getName().getStringRef().starts_with("linalg.pooling_")) {
    FailureOr<linalg::ConvolutionDimensions> dims =
        linalg::inferConvolutionDims(op);
    if (succeeded(dims) && dims->outputImage.size() == 2 &&
        dims->filterLoop.size() == 2) {
      int64_t oh = ranges[dims->outputImage[0]],
              ow = ranges[dims->outputImage[1]];
      int64_t r = ranges[dims->filterLoop[0]], s = ranges[dims->filterLoop[1]];
      int64_t sh = dims->strides[0], sw = dims->strides[1];
      int64_t dh = dims->dilations[0], dw = dims->dilations[1];
      KernelBuilder(b, loc, PoolingOp::getOperationName())
          .i64("n", 1)
          .i64("c", points / (oh * ow * r * s))
          .i64("h", (oh - 1) * sh + dh * (r - 1) + 1)
          .i64("w", (ow - 1) * sw + dw * (s - 1) + 1)
          .i64("r", r)
          .i64("s", s)
          .pair("stride", sh, sw)
          .dtype(dtype)
          .create();
      return success();
    }
  }
  if (linalg::isaContractionOpInterface(op)) {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (succeeded(dims)) {
      KernelBuilder k(b, loc, GemmOp::getOperationName());
      int64_t batch = product(ranges, dims->batch);
      if (batch != 1)
        k.i64("batch", batch);
      k.i64("m", product(ranges, dims->m))
          .i64("n", product(ranges, dims->n))
          .i64("k", product(ranges, dims->k))
          .dtype(dtype)
          .create();
      return success();
    }
  }
  if (linalg::isaConvolutionOpInterface(op)) {
    FailureOr<linalg::ConvolutionDimensions> dims =
        linalg::inferConvolutionDims(op);
    if (succeeded(dims) && dims->outputImage.size() == 2 &&
        dims->filterLoop.size() == 2) {
      int64_t groups = product(ranges, dims->depth);
      int64_t oh = ranges[dims->outputImage[0]],
              ow = ranges[dims->outputImage[1]];
      int64_t r = ranges[dims->filterLoop[0]], s = ranges[dims->filterLoop[1]];
      int64_t sh = dims->strides[0], sw = dims->strides[1];
      int64_t dh = dims->dilations[0], dw = dims->dilations[1];
      KernelBuilder k(b, loc, Conv2dOp::getOperationName());
      // linalg convolutions read an already padded input.
      k.i64("n", product(ranges, dims->batch))
          .i64("c", groups * product(ranges, dims->inputChannel))
          .i64("h", (oh - 1) * sh + dh * (r - 1) + 1)
          .i64("w", (ow - 1) * sw + dw * (s - 1) + 1)
          .i64("k", groups * product(ranges, dims->outputChannel))
          .i64("r", r)
          .i64("s", s)
          .pair("stride", sh, sw)
          .pair("dilation", dh, dw);
      if (groups != 1)
        k.i64("groups", groups);
      k.dtype(dtype).create();
      return success();
    }
  }
  if (op.getNumReductionLoops() == 0) {
    KernelBuilder(b, loc, ElementwiseOp::getOperationName())
        .i64("elements", points)
        .i64("inputs", op.getNumDpsInputs())
        .f64("flops_per_element",
             isa<linalg::FillOp>(op) ? 0.0 : payloadOps(op))
        .str("fn", op->getName().stripDialect())
        .dtype(dtype)
        .create();
    return success();
  }
  SmallVector<unsigned> parallel, reduction;
  op.getParallelDims(parallel);
  op.getReductionDims(reduction);
  KernelBuilder(b, loc, ReduceOp::getOperationName())
      .i64("rows", product(ranges, parallel))
      .i64("cols", product(ranges, reduction))
      .dtype(dtype)
      .create();
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
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&fw.getOrCreateBodyBlock());
      if (softmax) {
        auto type = cast<ShapedType>(softmax.getInput().getType());
        if (!type.hasStaticShape())
          return softmax.emitOpError("has a dynamic shape; "
                                     "--perf-convert-linalg needs static "
                                     "shapes");
        int64_t cols = type.getDimSize(softmax.getDimension());
        KernelBuilder(b, op.getLoc(), SoftmaxOp::getOperationName())
            .i64("rows", type.getNumElements() / cols)
            .i64("cols", cols)
            .dtype(type.getElementType())
            .create();
        continue;
      }
      if (failed(lowerLinalg(b, linalgOp)))
        return failure();
    }
    (void)skipped;
    f.erase();
    return success();
  }
};
} // namespace
