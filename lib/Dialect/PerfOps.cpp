//===- PerfOps.cpp - perf dialect op verifiers and kernel descriptions ----===//

#include "perf/Dialect/PerfOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "perf/Dialect/WorkSchema.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Limits.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace perf;
using namespace mlir;

//===----------------------------------------------------------------------===//
// Graph and framework ops
//===----------------------------------------------------------------------===//

void GraphOp::build(OpBuilder &builder, OperationState &state, StringRef name) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  Region *body = state.addRegion();
  body->push_back(new Block());
}

LogicalResult GraphOp::verify() {
  if (getPhase() != "inference" && getPhase() != "training" &&
      getPhase() != "decode")
    return emitOpError("phase must be \"inference\", \"training\" or "
                       "\"decode\", got \"")
           << getPhase() << "\"";
  if (Attribute target = getTargetAttr())
    if (!isa<GpuAttr>(target) && !isa<SymbolRefAttr, StringAttr>(target) &&
        target.getDialect().getNamespace() != "perf")
      return emitOpError("target must be a #perf.gpu or #perf.system");
  // A step's inputs are the ops that make them (perf.op "input").
  if (getBodyBlock().getNumArguments() != 0)
    return emitOpError("body must take no arguments; make a step's inputs "
                       "with ops (perf.op \"input\")");
  // Kernels check that they are not directly in the body
  // (verifyKernelOp): a million-op body is not walked twice.
  return success();
}

void RepeatOp::build(OpBuilder &builder, OperationState &state, int64_t count,
                     ValueRange inits) {
  state.addAttribute(getCountAttrName(state.name),
                     builder.getI64IntegerAttr(count));
  state.addOperands(inits);
  state.addTypes(inits.getTypes());
  Region *body = state.addRegion();
  auto *block = new Block();
  body->push_back(block);
  for (Value init : inits)
    block->addArgument(init.getType(), init.getLoc());
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  YieldOp::create(builder, state.location, block->getArguments());
}

OperandRange RepeatOp::getYielded() {
  return getBodyBlock().getTerminator()->getOperands();
}

int64_t RepeatOp::getUnrolledOpCount() {
  int64_t perCopy = 0;
  for (Operation &op : getBodyBlock()) {
    auto nested = dyn_cast<RepeatOp>(op);
    perCopy += nested ? nested.getUnrolledOpCount() : 1;
    perCopy = std::min(perCopy, kMaxUnrolledOps.max + 1);
  }
  auto count = static_cast<int64_t>(getCount());
  if (perCopy > 0 && count > (kMaxUnrolledOps.max + 1) / perCopy)
    return kMaxUnrolledOps.max + 1;
  return perCopy * count;
}

LogicalResult RepeatOp::verify() {
  Block &body = getBodyBlock();
  TypeRange inits = getInits().getTypes();
  if (body.getArgumentTypes() != inits)
    return emitOpError("body arguments must have the types of the initial "
                       "values (")
           << inits << "), got (" << body.getArgumentTypes() << ")";
  if (getYielded().getTypes() != inits)
    return emitOpError("must yield the types of the initial values (")
           << inits << "), got (" << getYielded().getTypes() << ")";
  if (getResultTypes() != inits)
    return emitOpError("results must have the types of the initial values (")
           << inits << "), got (" << getResultTypes() << ")";
  // The outermost repeat checks the whole nest once.
  if (isa<GraphOp>((*this)->getParentOp())) {
    int64_t unrolled = getUnrolledOpCount();
    if (!withinLimit(unrolled, kMaxUnrolledOps))
      return emitOpError("stands for more host ops once unrolled than the "
                         "limit ")
             << kMaxUnrolledOps.name << " (" << kMaxUnrolledOps.max << ")";
  }
  return success();
}

/// Whether `id` is a device or stream number: from 0 to max-devices.
static LogicalResult verifyPlacement(Operation *op, StringRef name,
                                     int64_t id) {
  if (id >= 0 && withinLimit(id, kMaxDevices))
    return success();
  return op->emitOpError("'")
         << name << "' must be from 0 to " << kMaxDevices.max << " (limit "
         << kMaxDevices.name << "), got " << id;
}

LogicalResult SyncOp::verify() {
  if (failed(
          verifyPlacement(*this, "device", static_cast<int64_t>(getDevice()))))
    return failure();
  if (std::optional<uint64_t> stream = getStream())
    return verifyPlacement(*this, "stream", static_cast<int64_t>(*stream));
  return success();
}

// A perf.op's properties in bytecode: one array attribute, [op name, device,
// work list] with `unit` for an absent one. The writer writes each distinct
// array once, and the reader reads one attribute an op instead of three (a
// twentieth of estimating a step read from bytecode). Files written before
// hold the three one by one, the device first: an integer or none, never an
// array, which tells the two apart.
LogicalResult FrameworkOp::verify() {
  if (getOpName().empty())
    return emitOpError("needs a non-empty op name");
  // Each piece of work was checked when it was made (WorkAttr::verify).
  return verifyPlacement(*this, "device", static_cast<int64_t>(getDevice()));
}

ArrayRef<WorkAttr> FrameworkOp::getWorkList() {
  ArrayAttr work = getWorkAttr();
  if (!work)
    return {};
  // The verifier (Perf_WorkListAttr) has checked every element is a
  // WorkAttr, which is one pointer as an Attribute is.
  ArrayRef<Attribute> list = work.getValue();
  return ArrayRef<WorkAttr>(reinterpret_cast<const WorkAttr *>(list.data()),
                            list.size());
}

void FrameworkOp::setWorkList(ArrayRef<WorkAttr> work) {
  if (work.empty()) {
    removeWorkAttr();
    return;
  }
  SmallVector<Attribute> list(work.begin(), work.end());
  setWorkAttr(ArrayAttr::get(getContext(), list));
}

void FrameworkOp::appendWork(WorkAttr work) {
  SmallVector<WorkAttr> list(getWorkList());
  list.push_back(work);
  setWorkList(list);
}

void FrameworkOp::setWork(size_t index, WorkAttr work) {
  SmallVector<WorkAttr> list(getWorkList());
  list[index] = work;
  setWorkList(list);
}

InFlightDiagnostic FrameworkOp::emitWorkError(WorkAttr work) {
  return emitError() << "'perf." << work.getKindName() << "' launched by '"
                     << getOpName() << "': ";
}

/// `{ perf.gemm {...} ... }`: the work list, one piece a line.
static ParseResult parseWorkList(OpAsmParser &parser, ArrayAttr &work) {
  if (failed(parser.parseOptionalLBrace()))
    return success();
  MLIRContext *context = parser.getContext();
  SmallVector<Attribute> list;
  while (failed(parser.parseOptionalRBrace())) {
    SMLoc at = parser.getCurrentLocation();
    StringRef name;
    if (failed(parser.parseOptionalKeyword(&name)))
      return parser.emitError(at, "expected device work (perf.gemm, "
                                  "perf.all_reduce, ...) or '}'");
    std::optional<WorkKind> kind = parseWorkMnemonic(name);
    if (!kind)
      return parser.emitError(at)
             << "'" << name
             << "' is not device work; only kernels, copies and collectives "
                "may appear in a perf.op";
    NamedAttrList attrs;
    if (parser.parseOptionalAttrDict(attrs))
      return failure();
    auto piece =
        WorkAttr::getChecked([&]() { return parser.emitError(at); }, context,
                             *kind, attrs.getDictionary(context));
    if (!piece)
      return failure();
    list.push_back(piece);
  }
  if (!list.empty())
    work = ArrayAttr::get(context, list);
  return success();
}

static void printWorkList(OpAsmPrinter &printer, FrameworkOp, ArrayAttr work) {
  if (!work)
    return;
  printer << " {";
  printer.increaseIndent();
  for (Attribute piece : work) {
    auto w = cast<WorkAttr>(piece);
    printer.printNewline();
    printer << "perf." << w.getKindName();
    printer.printOptionalAttrDict(w.getAttrs().getValue());
  }
  printer.decreaseIndent();
  printer.printNewline();
  printer << "}";
}

//===----------------------------------------------------------------------===//
// Device work
//===----------------------------------------------------------------------===//

DType perf::getDType(Type t) {
  if (t.isF64())
    return DType::F64;
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (t.isTF32())
    return DType::TF32;
  if (isa<Float8E4M3FNType, Float8E5M2Type>(t))
    return DType::F8;
  if (t.isInteger(64))
    return DType::I64;
  if (t.isInteger(32))
    return DType::I32;
  if (t.isInteger(8))
    return DType::I8;
  if (t.isInteger(1))
    return DType::Bool;
  return DType::F32;
}

Type perf::getElementType(MLIRContext *context, DType dtype) {
  Builder b(context);
  switch (dtype) {
  case DType::F64:
    return b.getF64Type();
  case DType::F32:
    return b.getF32Type();
  case DType::TF32:
    return b.getTF32Type();
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::F8:
    return b.getType<Float8E4M3FNType>();
  case DType::I64:
    return b.getI64Type();
  case DType::I32:
    return b.getI32Type();
  case DType::I8:
    return b.getI8Type();
  case DType::Bool:
    return b.getI1Type();
  }
  return b.getF32Type();
}

bool perf::hasMeasuredLatency(WorkAttr work) {
  if (work.has(kMeasuredLatencyAttr))
    return true;
  auto model = work.getAs<StringAttr>(kCostModelAttr);
  return model && model.getValue() == "measured" && work.has(kLatencyAttr);
}

StringRef perf::defaultLaunchCall(WorkAttr work) {
  return work.isMemcpy() ? "cudaMemcpyAsync" : "cudaLaunchKernel";
}

#define GET_OP_CLASSES
#include "perf/Dialect/PerfOps.cpp.inc"
