//===- FrameworkOpBytecodeTest.cpp - A perf.op's properties in bytecode ---===//
//
// A perf.op's name, device and work list are read from bytecode as one array
// attribute, or as three attributes one by one from a file written before
// that; anything else is refused with what was found. The reader here hands
// readProperties the attributes a file would hold.
//
//===----------------------------------------------------------------------===//

#include "mlir/Bytecode/BytecodeImplementation.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/DebugStringHelper.h"
#include "perf/Dialect/PerfOps.h"
#include "gtest/gtest.h"
#include <deque>
#include <string>

using namespace perf;
using namespace mlir;

namespace {
/// Reads the attributes it was given, in order (a null one is an absent
/// optional attribute); anything else fails.
class AttributeListReader : public DialectBytecodeReader {
public:
  AttributeListReader(MLIRContext *context, std::deque<Attribute> attrs)
      : context(context), attrs(std::move(attrs)) {}

  InFlightDiagnostic emitError(const Twine &msg = {}) const override {
    return mlir::emitError(UnknownLoc::get(context), msg);
  }
  FailureOr<const DialectVersion *>
  getDialectVersion(StringRef) const override {
    return failure();
  }
  MLIRContext *getContext() const override { return context; }
  uint64_t getBytecodeVersion() const override { return 6; }
  LogicalResult readAttribute(Attribute &result) override {
    if (failed(readOptionalAttribute(result)) || !result)
      return failure();
    return success();
  }
  LogicalResult readOptionalAttribute(Attribute &result) override {
    if (attrs.empty())
      return failure();
    result = attrs.front();
    attrs.pop_front();
    return success();
  }
  LogicalResult readType(Type &) override { return failure(); }
  LogicalResult readVarInt(uint64_t &) override { return failure(); }
  LogicalResult readSignedVarInt(int64_t &) override { return failure(); }
  FailureOr<APInt> readAPIntWithKnownWidth(unsigned) override {
    return failure();
  }
  FailureOr<APFloat>
  readAPFloatWithKnownSemantics(const llvm::fltSemantics &) override {
    return failure();
  }
  LogicalResult readString(StringRef &) override { return failure(); }
  LogicalResult readBlob(ArrayRef<char> &) override { return failure(); }
  LogicalResult readBool(bool &) override { return failure(); }
  /// Whether every attribute given was read.
  bool done() const { return attrs.empty(); }

private:
  FailureOr<AsmDialectResourceHandle> readResourceHandle() override {
    return failure();
  }
  MLIRContext *context;
  std::deque<Attribute> attrs;
};

class FrameworkOpBytecodeTest : public ::testing::Test {
protected:
  FrameworkOpBytecodeTest() : b(&context) {
    context.loadDialect<PerfDialect>();
    gemm = WorkAttr::get(
        &context, WorkKind::Gemm,
        b.getDictionaryAttr({b.getNamedAttr("m", b.getI64IntegerAttr(8)),
                             b.getNamedAttr("n", b.getI64IntegerAttr(8)),
                             b.getNamedAttr("k", b.getI64IntegerAttr(8))}));
    work = b.getArrayAttr({gemm});
  }

  /// readProperties on `attrs`; the properties read, or the error said.
  FailureOr<FrameworkOp::Properties> read(std::deque<Attribute> attrs,
                                          std::string *error = nullptr) {
    ScopedDiagnosticHandler capture(&context, [&](Diagnostic &d) {
      if (error)
        *error = d.str();
      return success();
    });
    AttributeListReader reader(&context, std::move(attrs));
    OperationState state(UnknownLoc::get(&context),
                         FrameworkOp::getOperationName());
    if (failed(FrameworkOp::readProperties(reader, state)))
      return failure();
    EXPECT_TRUE(reader.done()) << "attributes left unread";
    return state.getOrAddProperties<FrameworkOp::Properties>();
  }

  MLIRContext context;
  Builder b;
  WorkAttr gemm;
  ArrayAttr work;
};

TEST_F(FrameworkOpBytecodeTest, ReadsTheArray) {
  auto props = read({b.getArrayAttr(
      {b.getStringAttr("aten::linear"), b.getI64IntegerAttr(3), work})});
  ASSERT_TRUE(succeeded(props));
  EXPECT_EQ(props->op_name.getValue(), "aten::linear");
  EXPECT_EQ(props->device.getInt(), 3);
  EXPECT_EQ(props->work, work);

  // Unit for a device and a work list left out.
  Attribute none = b.getUnitAttr();
  props = read({b.getArrayAttr({b.getStringAttr("aten::view"), none, none})});
  ASSERT_TRUE(succeeded(props));
  EXPECT_EQ(props->op_name.getValue(), "aten::view");
  EXPECT_FALSE(props->device);
  EXPECT_FALSE(props->work);
}

TEST_F(FrameworkOpBytecodeTest, ReadsTheThreeOfAnEarlierFile) {
  // The device (or none), the name, the work list (or none).
  auto props =
      read({b.getI64IntegerAttr(2), b.getStringAttr("aten::linear"), work});
  ASSERT_TRUE(succeeded(props));
  EXPECT_EQ(props->op_name.getValue(), "aten::linear");
  EXPECT_EQ(props->device.getInt(), 2);
  EXPECT_EQ(props->work, work);

  props = read({Attribute(), b.getStringAttr("aten::view"), Attribute()});
  ASSERT_TRUE(succeeded(props));
  EXPECT_EQ(props->op_name.getValue(), "aten::view");
  EXPECT_FALSE(props->device);
  EXPECT_FALSE(props->work);
}

TEST_F(FrameworkOpBytecodeTest, RefusesAnythingElseSayingWhat) {
  Attribute name = b.getStringAttr("aten::linear");
  Attribute none = b.getUnitAttr();
  std::string error;
  // Two of the three; the name left out; a string for the device; the work
  // list's place holding a piece of work; a string where the device or the
  // array comes first.
  for (ArrayAttr bad :
       {b.getArrayAttr({name, none}), b.getArrayAttr({none, none, none}),
        b.getArrayAttr({name, name, none}),
        b.getArrayAttr({name, none, gemm})}) {
    error.clear();
    EXPECT_TRUE(failed(read({bad}, &error))) << debugString(bad);
    EXPECT_NE(error.find("perf.op properties must be [op name, device or "
                         "unit, work list or unit], got"),
              std::string::npos)
        << error;
  }
  error.clear();
  EXPECT_TRUE(failed(read({name}, &error)));
  EXPECT_NE(error.find("expected a device or an array, got \"aten::linear\""),
            std::string::npos)
      << error;
}
} // namespace
