//===- WorkAttrTest.cpp - Device work as uniqued attributes ---------------===//
//
// A step repeats its kernels: identical work must be one attribute however
// many perf.ops launch it, survive text and bytecode unchanged, and be
// changed only by making a new attribute.
//
//===----------------------------------------------------------------------===//

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Dialect/WorkSchema.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace perf;
using namespace mlir;

namespace {
constexpr const char *kStep = R"mlir(perf.graph @step {
  %0 = perf.op "aten::linear" : () -> tensor<64x768xf16> {
    perf.gemm {dtype = f16, k = 768, m = 64, n = 768}
    perf.elementwise {dtype = f16, elements = 49152, fn = "gelu"}
  }
  %1 = perf.op "aten::linear"(%0) : (tensor<64x768xf16>) -> tensor<64x768xf16> {
    perf.gemm {dtype = f16, k = 768, m = 64, n = 768}
  }
  perf.op "c10d::allreduce_"(%1) : (tensor<64x768xf16>) -> () {
    perf.all_reduce {bytes = 98304 : i64, dtype = f16, group = array<i64: 0, 1>}
  }
  perf.op "aten::view"(%1) : (tensor<64x768xf16>) -> ()
}
)mlir";

class WorkAttrTest : public ::testing::Test {
protected:
  WorkAttrTest() { context.loadDialect<PerfDialect>(); }

  OwningOpRef<ModuleOp> parse(StringRef text) {
    return parseSourceString<ModuleOp>(text, &context);
  }

  static std::string print(Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    return text;
  }

  static SmallVector<FrameworkOp> frameworkOps(ModuleOp module) {
    SmallVector<FrameworkOp> ops;
    module.walk([&](FrameworkOp op) { ops.push_back(op); });
    return ops;
  }

  MLIRContext context;
};

TEST_F(WorkAttrTest, IdenticalWorkIsOneAttribute) {
  OwningOpRef<ModuleOp> module = parse(kStep);
  ASSERT_TRUE(module);
  SmallVector<FrameworkOp> ops = frameworkOps(*module);
  ASSERT_EQ(ops.size(), 4u);
  ASSERT_EQ(ops[0].getNumWork(), 2u);
  ASSERT_EQ(ops[1].getNumWork(), 1u);
  EXPECT_EQ(ops[0].getWork(0), ops[1].getWork(0));
  EXPECT_NE(ops[0].getWork(0), ops[0].getWork(1));
  EXPECT_FALSE(ops[3].hasWork());
  EXPECT_TRUE(ops[3].getWorkList().empty());

  WorkAttr gemm = ops[0].getWork(0);
  EXPECT_EQ(gemm.getKind(), WorkKind::Gemm);
  EXPECT_EQ(gemm.getKindName(), "gemm");
  EXPECT_TRUE(gemm.isKernel());
  KernelDesc d = gemm.getKernelDesc();
  EXPECT_EQ(d.dtype, DType::F16);
  EXPECT_EQ(d.batch, 1);
  // 2 * 64 * 768 * 768 FLOPs.
  EXPECT_DOUBLE_EQ(gemm.getFlopCount(), 75497472.0);

  WorkAttr allReduce = ops[2].getWork(0);
  EXPECT_TRUE(allReduce.isCollective());
  EXPECT_EQ(allReduce.getCollectiveKind(), CollectiveKind::AllReduce);
  EXPECT_EQ(allReduce.getCollectiveBytes(), 98304);
  EXPECT_EQ(allReduce.getGroupIds(), ArrayRef<int64_t>({0, 1}));
}

TEST_F(WorkAttrTest, TextRoundTripIsExact) {
  OwningOpRef<ModuleOp> module = parse(kStep);
  ASSERT_TRUE(module);
  std::string printed = print(module->getBody()->front().getParentOp());
  OwningOpRef<ModuleOp> again = parse(printed);
  ASSERT_TRUE(again);
  EXPECT_EQ(print(*again), printed);
  EXPECT_NE(printed.find("      perf.gemm {dtype = f16, k = 768 : i64, "
                         "m = 64 : i64, n = 768 : i64}\n      "
                         "perf.elementwise"),
            std::string::npos)
      << printed;
}

TEST_F(WorkAttrTest, BytecodeRoundTripKeepsWorkShared) {
  OwningOpRef<ModuleOp> module = parse(kStep);
  ASSERT_TRUE(module);
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  ASSERT_TRUE(succeeded(writeBytecodeToFile(*module, os)));
  Block block;
  ParserConfig config(&context);
  ASSERT_TRUE(succeeded(readBytecodeFile(
      llvm::MemoryBufferRef(bytes, "step.mlirbc"), &block, config)));
  auto read = cast<ModuleOp>(block.front());
  EXPECT_EQ(StringRef(print(read)).trim(), StringRef(print(*module)).trim());
  SmallVector<FrameworkOp> ops = frameworkOps(read);
  EXPECT_EQ(ops[0].getWork(0), ops[1].getWork(0));
}

TEST_F(WorkAttrTest, ChangesMakeNewAttributes) {
  OwningOpRef<ModuleOp> module = parse(kStep);
  ASSERT_TRUE(module);
  SmallVector<FrameworkOp> ops = frameworkOps(*module);
  WorkAttr gemm = ops[0].getWork(0);
  Builder b(&context);
  WorkAttr priced = gemm.with(kLatencyAttr, b.getF64FloatAttr(12.5));
  EXPECT_NE(priced, gemm);
  EXPECT_FALSE(gemm.has(kLatencyAttr));
  EXPECT_DOUBLE_EQ(priced.getAs<FloatAttr>(kLatencyAttr).getValueAsDouble(),
                   12.5);
  EXPECT_EQ(priced.with(kLatencyAttr, nullptr), gemm);

  ops[1].setWork(0, priced);
  EXPECT_EQ(ops[1].getWork(0), priced);
  EXPECT_EQ(ops[0].getWork(0), gemm);
  ops[1].appendWork(gemm);
  EXPECT_EQ(ops[1].getNumWork(), 2u);
  ops[1].setWorkList({});
  EXPECT_FALSE(ops[1].hasWork());
}

TEST_F(WorkAttrTest, BadWorkIsRefusedWithItsLine) {
  std::string error;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    llvm::raw_string_ostream os(error);
    os << diag.getLocation() << ": " << diag;
    return success();
  });
  EXPECT_FALSE(parse(R"mlir(perf.graph @step {
  perf.op "aten::mm" : () -> () {
    perf.gemm {m = 64, n = 0, k = 768}
  }
})mlir"));
  EXPECT_NE(error.find(":3:5): custom op 'perf.op' 'perf.gemm' attribute 'n' "
                       "failed to satisfy constraint: a positive 64-bit "
                       "integer"),
            std::string::npos)
      << error;
  error.clear();
  EXPECT_FALSE(parse(R"mlir(perf.graph @step {
  perf.op "aten::mm" : () -> () {
    perf.gemm {m = 64, k = 768}
  }
})mlir"));
  EXPECT_NE(error.find("'perf.gemm' requires attribute 'n'"), std::string::npos)
      << error;
}
// docs/generated/WorkKinds.md lists each kind's own attributes, the
// required ones in bold, in the table's order: the list a user reads is the
// verifier's.
TEST(WorkSchema, DocsListEveryKind) {
  auto docs = llvm::MemoryBuffer::getFile(PERF_SOURCE_DIR
                                          "/docs/generated/WorkKinds.md");
  ASSERT_TRUE(bool(docs));
  StringRef text = (*docs)->getBuffer();
  for (uint32_t i = 0; i < kNumWorkKinds; ++i) {
    const WorkSchema &schema = getWorkSchema(*symbolizeWorkKind(i));
    ASSERT_EQ(uint32_t(schema.kind), i);
    std::string row = "\n| `perf." + stringifyWorkKind(schema.kind).str() +
                      "` | " + schema.summary.str() + " |";
    size_t at = text.find(row);
    ASSERT_NE(at, StringRef::npos) << row;
    // The attributes' cell without the defaults in parentheses.
    std::string cell;
    int depth = 0;
    StringRef line = text.substr(at + row.size()).split('\n').first;
    for (char c : line.split('|').first) {
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      if (depth == 0 && c != ')' && c != '|')
        cell += c;
    }
    SmallVector<StringRef> listed;
    StringRef(cell).split(listed, ",", -1, /*KeepEmpty=*/false);
    llvm::erase_if(listed, [](StringRef s) { return s.trim().empty(); });
    SmallVector<std::string> expected;
    for (const WorkField &field : schema.fields)
      expected.push_back(field.required ? "**`" + field.name.str() + "`**"
                                        : "`" + field.name.str() + "`");
    ASSERT_EQ(listed.size(), expected.size()) << row << cell;
    for (auto [doc, want] : llvm::zip(listed, expected))
      EXPECT_EQ(doc.trim(), want) << row << " " << doc.str();
  }
}
} // namespace
