//===- TraceReaderTest.cpp - Execution Trace and Kineto readers -----------===//

#include "perf/Support/InputFile.h"
#include "perf/Trace/ExecutionTrace.h"
#include "perf/Trace/KinetoTrace.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "gtest/gtest.h"

using namespace perf::trace;

static ExecutionTrace parseEt(const char *text) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  EXPECT_TRUE(bool(json));
  llvm::Expected<ExecutionTrace> et = ExecutionTrace::parse(*json, "et");
  EXPECT_TRUE(bool(et)) << llvm::toString(et.takeError());
  return std::move(*et);
}

TEST(ExecutionTrace, OldSchemaSelfParentRootAndTensorDeps) {
  // Node 1 is its own parent (the process root); relu reads mm's output.
  ExecutionTrace et = parseEt(R"json({"schema": "1.0.1", "pid": 5, "nodes": [
    {"id": 1, "name": "[pytorch|profiler|execution_graph|process]", "parent": 1},
    {"id": 2, "name": "[pytorch|profiler|execution_graph|thread]", "parent": 1},
    {"id": 3, "name": "aten::mm", "parent": 2, "rf_id": 1, "tid": 1,
     "inputs": [[10,1,0,6,4,"cuda:0"],[11,2,0,12,4,"cuda:0"]],
     "input_shapes": [[2,3],[3,4]], "input_types": ["Tensor(float)","Tensor(float)"],
     "outputs": [[12,3,0,8,4,"cuda:0"]], "output_shapes": [[2,4]], "output_types": ["Tensor(float)"]},
    {"id": 4, "name": "aten::empty", "parent": 3, "inputs": [], "outputs": []},
    {"id": 5, "name": "aten::relu", "parent": 2, "rf_id": 3,
     "inputs": [[12,3,0,8,4,"cuda:0"]], "input_shapes": [[2,4]], "input_types": ["Tensor(float)"],
     "outputs": [[13,4,0,8,4,"cuda:0"]], "output_shapes": [[2,4]], "output_types": ["Tensor(float)"]}
  ]})json");
  EXPECT_FALSE(et.usesNewLayout());
  ASSERT_EQ(et.topLevelOps().size(), 2u);
  const ExecNode &mm = et.nodes()[et.topLevelOps()[0]];
  EXPECT_EQ(mm.name, "aten::mm");
  ASSERT_EQ(mm.inputs.size(), 2u);
  EXPECT_EQ(mm.inputs[1].shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(mm.inputs[1].dtype, "float");
  std::vector<size_t> deps = et.producersOf(et.topLevelOps()[1]);
  ASSERT_EQ(deps.size(), 1u);
  EXPECT_EQ(deps[0], et.topLevelOps()[0]);
  EXPECT_EQ(et.findByRfId(3)->name, "aten::relu");
}

TEST(ExecutionTrace, NewSchemaAttrsAndTensorLists) {
  ExecutionTrace et =
      parseEt(R"json({"schema": "1.1.0-chakra.0.0.4", "pid": 5, "nodes": [
    {"id": 1, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1,
     "inputs": {"values": [], "shapes": [], "types": []},
     "outputs": {"values": [], "shapes": [], "types": []}, "attrs": []},
    {"id": 2, "name": "aten::cat", "ctrl_deps": 1,
     "inputs": {"values": [[[20,1,0,4,4,"cuda:0"],[21,2,0,4,4,"cuda:0"]], 1],
                "shapes": [[[2,2],[2,2]], []],
                "types": ["GenericList[Tensor(float),Tensor(float)]", "Int"]},
     "outputs": {"values": [[22,3,0,8,4,"cuda:0"]], "shapes": [[2,4]], "types": ["Tensor(float)"]},
     "attrs": [{"name": "rf_id", "type": "uint64", "value": 7},
               {"name": "tid", "type": "uint64", "value": 1}]}
  ]})json");
  EXPECT_TRUE(et.usesNewLayout());
  ASSERT_EQ(et.topLevelOps().size(), 1u);
  const ExecNode &cat = et.nodes()[et.topLevelOps()[0]];
  EXPECT_EQ(cat.rfId, 7);
  ASSERT_EQ(cat.inputs.size(), 2u);
  EXPECT_EQ(cat.inputs[0].tensorId, 20);
  EXPECT_EQ(cat.inputs[1].shape, (std::vector<int64_t>{2, 2}));
  ASSERT_EQ(cat.scalarInputs.size(), 2u);
  EXPECT_EQ(cat.scalarInputs[1].getAsInteger(), 1);
  ASSERT_EQ(cat.outputs.size(), 1u);
}

TEST(ExecutionTrace, ParentCycleDoesNotHang) {
  ExecutionTrace et = parseEt(R"json({"schema": "1.0.1", "nodes": [
    {"id": 1, "name": "aten::a", "parent": 2},
    {"id": 2, "name": "aten::b", "parent": 1}]})json");
  EXPECT_EQ(et.brokenParentLinks(), 1u);
  EXPECT_EQ(et.topLevelOps().size(), 1u);
}

TEST(ExecutionTrace, UnknownSchemaIsAnError) {
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse(R"json({"schema": "3.0.0", "nodes": []})json");
  llvm::Expected<ExecutionTrace> et = ExecutionTrace::parse(*json, "x.json");
  ASSERT_FALSE(bool(et));
  EXPECT_EQ(llvm::toString(et.takeError()),
            "unknown execution trace schema version '3.0.0' "
            "(supported: 1.0.1 through 1.1.x) (x.json)");
}

TEST(KinetoTrace, OldCategoryNamesAndStringThreadIds) {
  // The 2021 schema: Operator/Runtime/Kernel, tids as strings.
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(R"json({
    "schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Tesla V100-DGXS-32GB"}],
    "traceEvents": [
      {"ph": "X", "cat": "Operator", "name": "ProfilerStep#3", "pid": 9, "tid": "9", "ts": 0, "dur": 100},
      {"ph": "X", "cat": "Operator", "name": "aten::relu", "pid": 9, "tid": "9", "ts": 10, "dur": 20},
      {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": "9", "ts": 12, "dur": 5, "args": {"correlation": 4}},
      {"ph": "X", "cat": "Kernel", "name": "relu_kernel", "pid": 0, "tid": "stream 7", "ts": 20, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 4}}
    ]})json");
  ASSERT_TRUE(bool(json));
  llvm::Expected<KinetoTrace> trace =
      KinetoTrace::parse(llvm::formatv("{0}", *json).str(), "old");
  ASSERT_TRUE(bool(trace));
  EXPECT_EQ(trace->gpuName(), "Tesla V100-DGXS-32GB");
  ASSERT_EQ(trace->steps().size(), 1u);
  EXPECT_EQ(trace->steps()[0].name, "ProfilerStep#3");
  ASSERT_EQ(trace->topLevelOps().size(), 1u);
  EXPECT_EQ(trace->ops()[trace->topLevelOps()[0]].name, "aten::relu");
  std::vector<size_t> launched = trace->deviceEventsOf(trace->topLevelOps()[0]);
  ASSERT_EQ(launched.size(), 1u);
  EXPECT_EQ(trace->deviceEvents()[launched[0]].stream, 7);
  EXPECT_EQ(trace->hostPid(), 9);
}

TEST(KinetoTrace, RealResnet50SampleWhenPresent) {
  std::string path = std::string(PERF_SOURCE_DIR) +
                     "/../shared/data/traces/kineto/tb_plugin__samples__"
                     "resnet50_num_workers_0__worker0.1623143089861.pt.trace."
                     "json.gz";
  if (!llvm::sys::fs::exists(path))
    GTEST_SKIP() << "shared data absent: " << path;
  llvm::Expected<KinetoTrace> trace = KinetoTrace::load(path);
  ASSERT_TRUE(bool(trace));
  EXPECT_EQ(trace->gpuName(), "Tesla V100-DGXS-32GB");
  EXPECT_EQ(trace->steps().size(), 6u);
  EXPECT_EQ(trace->deviceEvents().size(), 9096u); // 8772 + 12 + 312
  EXPECT_EQ(trace->linkStats().deviceUnlinked, 0u);
}

// An ET of one step and a profile of two, captured in another run (no
// record ids in common). The profile has an op the ET does not (a copy in
// the middle of the second step): aligned by the longest common
// subsequence of names, every ET op links to the second step, and nothing
// after the extra op is shifted.
TEST(KinetoTrace, LinksByNameAlignmentAcrossAnExtraOp) {
  ExecutionTrace et = parseEt(R"json({"schema": "1.0.1", "pid": 5, "nodes": [
    {"id": 1, "name": "[pytorch|profiler|execution_graph|thread]", "parent": 1},
    {"id": 2, "name": "aten::mm", "parent": 1, "rf_id": 101},
    {"id": 3, "name": "aten::relu", "parent": 1, "rf_id": 102},
    {"id": 4, "name": "aten::sum", "parent": 1, "rf_id": 103},
    {"id": 5, "name": "aten::add_", "parent": 1, "rf_id": 104}
  ]})json");
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse(R"json({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 10, "dur": 5, "args": {"Record function id": 1}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 7, "tid": 7, "ts": 20, "dur": 5, "args": {"Record function id": 2}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::sum", "pid": 7, "tid": 7, "ts": 30, "dur": 5, "args": {"Record function id": 3}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add_", "pid": 7, "tid": 7, "ts": 40, "dur": 5, "args": {"Record function id": 4}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 50, "dur": 5, "args": {"Record function id": 5}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 7, "tid": 7, "ts": 60, "dur": 5, "args": {"Record function id": 6}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 7, "tid": 7, "ts": 70, "dur": 5, "args": {"Record function id": 7}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::sum", "pid": 7, "tid": 7, "ts": 80, "dur": 5, "args": {"Record function id": 8}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add_", "pid": 7, "tid": 7, "ts": 90, "dur": 5, "args": {"Record function id": 9}}
  ]})json");
  ASSERT_TRUE(bool(json));
  llvm::Expected<KinetoTrace> trace =
      KinetoTrace::parse(llvm::formatv("{0}", *json).str(), "k");
  ASSERT_TRUE(bool(trace));
  KinetoTrace::EtLinkResult link = trace->linkExecutionTrace(et);
  EXPECT_TRUE(link.alignedByName);
  EXPECT_EQ(link.linked, 4u);
  EXPECT_EQ(link.unlinked, 5u);
  EXPECT_EQ(link.etUnlinked, 0u);
  // The last copy of the step: a warmed-up one.
  std::vector<int64_t> nodes;
  for (size_t index : trace->topLevelOps())
    nodes.push_back(trace->ops()[index].etNode);
  EXPECT_EQ(nodes, (std::vector<int64_t>{-1, -1, -1, -1, 2, -1, 3, 4, 5}));
}

// Read a slice of events at a time, the trace is the same whatever the
// slice size: here every event is a slice of its own.
TEST(KinetoTrace, SlicesOfAnySizeReadTheSameTrace) {
  std::string path = std::string(PERF_SOURCE_DIR) +
                     "/test/Import/Trace/Inputs/dlrm_mini_kineto.json";
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
      perf::readInputFile(path);
  ASSERT_TRUE(bool(file));
  llvm::StringRef text = (*file)->getBuffer();
  llvm::Expected<KinetoTrace> whole = KinetoTrace::parse(text, path);
  llvm::Expected<KinetoTrace> sliced = KinetoTrace::parse(text, path, 1);
  ASSERT_TRUE(bool(whole));
  ASSERT_TRUE(bool(sliced));
  ASSERT_GT(whole->deviceEvents().size(), 1u);
  EXPECT_EQ(whole->ops().size(), sliced->ops().size());
  EXPECT_EQ(whole->runtimeCalls().size(), sliced->runtimeCalls().size());
  ASSERT_EQ(whole->deviceEvents().size(), sliced->deviceEvents().size());
  for (size_t i = 0; i < whole->deviceEvents().size(); ++i) {
    EXPECT_EQ(whole->deviceEvents()[i].name, sliced->deviceEvents()[i].name);
    EXPECT_EQ(whole->deviceEvents()[i].start, sliced->deviceEvents()[i].start);
    EXPECT_EQ(whole->deviceEvents()[i].runtimeIndex,
              sliced->deviceEvents()[i].runtimeIndex);
  }
  EXPECT_EQ(whole->gpuName(), sliced->gpuName());
}

// An error in a later slice is located in the file, and a comma that ends
// the array after a cut is refused as it is in one piece.
TEST(KinetoTrace, ErrorsInSlicesNameTheLine) {
  std::string bad =
      "{\"traceEvents\": [\n"
      "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 1},\n"
      "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"b\", \"ts\": 2},\n"
      "{\"ph\": \"X\", \"cat\": \"cpu_op\" \"name\": \"c\"}\n"
      "]}";
  for (size_t sliceBytes : {size_t(1), KinetoTrace::kSliceBytes}) {
    std::string message = llvm::toString(
        KinetoTrace::parse(bad, "bad.json", sliceBytes).takeError());
    EXPECT_EQ(message.rfind("bad.json:4:", 0), 0u) << message;
  }
  // A comma with no value after it, or (found by fuzz-kineto) before it.
  for (const char *text :
       {"[{\"ph\": \"X\", \"ts\": 1},\n{\"ph\": \"X\", \"ts\": 2},\n]",
        "[\n  , {\"ph\": \"X\", \"ts\": 1},\n{\"ph\": \"X\", \"ts\": 2}]"}) {
    for (size_t sliceBytes : {size_t(1), KinetoTrace::kSliceBytes}) {
      std::string message = llvm::toString(
          KinetoTrace::parse(text, "t.json", sliceBytes).takeError());
      EXPECT_EQ(message.rfind("t.json:", 0), 0u) << message;
      EXPECT_NE(message.find("invalid JSON"), std::string::npos) << message;
    }
    // Every event its own slice, the comma is named where it is.
    std::string message =
        llvm::toString(KinetoTrace::parse(text, "t.json", 1).takeError());
    EXPECT_NE(message.find("a ',' with no value"), std::string::npos)
        << message;
  }
}

// The execution trace's nodes read a slice at a time: the same trace whatever
// the slice size (here every node its own slice), errors located in the
// file.
TEST(ExecutionTrace, SlicesOfAnySizeReadTheSameTrace) {
  std::string path = std::string(PERF_SOURCE_DIR) +
                     "/test/Import/Trace/Inputs/dlrm_mini_et.json";
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
      perf::readInputFile(path);
  ASSERT_TRUE(bool(file));
  llvm::StringRef text = (*file)->getBuffer();
  llvm::Expected<ExecutionTrace> whole = ExecutionTrace::parseText(text, path);
  llvm::Expected<ExecutionTrace> sliced =
      ExecutionTrace::parseText(text, path, 1);
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  ASSERT_TRUE(bool(json));
  llvm::Expected<ExecutionTrace> tree = ExecutionTrace::parse(*json, path);
  ASSERT_TRUE(bool(whole));
  ASSERT_TRUE(bool(sliced));
  ASSERT_TRUE(bool(tree));
  ASSERT_GT(whole->nodes().size(), 10u);
  for (const ExecutionTrace *other : {&*sliced, &*tree}) {
    ASSERT_EQ(whole->nodes().size(), other->nodes().size());
    for (size_t i = 0; i < whole->nodes().size(); ++i) {
      EXPECT_EQ(whole->nodes()[i].id, other->nodes()[i].id);
      EXPECT_EQ(whole->nodes()[i].name, other->nodes()[i].name);
      EXPECT_EQ(whole->nodes()[i].inputs.size(),
                other->nodes()[i].inputs.size());
    }
    EXPECT_EQ(whole->topLevelOps(), other->topLevelOps());
    EXPECT_EQ(whole->schema(), other->schema());
    EXPECT_EQ(whole->pid(), other->pid());
  }
}

TEST(ExecutionTrace, ErrorsInSlicesNameTheLine) {
  std::string bad = "{\"schema\": \"1.0.1\", \"pid\": 1, \"nodes\": [\n"
                    "{\"id\": 1, \"name\": \"a\", \"parent\": 1},\n"
                    "{\"id\": 2, \"name\": \"b\", \"parent\": 1},\n"
                    "{\"id\": 3, \"name\" \"c\", \"parent\": 1}\n"
                    "]}";
  for (size_t sliceBytes : {size_t(1), ExecutionTrace::kSliceBytes}) {
    std::string message = llvm::toString(
        ExecutionTrace::parseText(bad, "bad.json", sliceBytes).takeError());
    EXPECT_EQ(message.rfind("bad.json:4:", 0), 0u) << message;
  }
  // A node that is not an object is named by its place in the whole array.
  std::string scalar = "{\"schema\": \"1.0.1\", \"nodes\": [\n"
                       "{\"id\": 1, \"name\": \"a\", \"parent\": 1},\n"
                       "{\"id\": 2, \"name\": \"b\", \"parent\": 1},\n"
                       "7]}";
  std::string message = llvm::toString(
      ExecutionTrace::parseText(scalar, "s.json", 1).takeError());
  EXPECT_NE(message.find("node #2 is not an object"), std::string::npos)
      << message;
  // No "nodes" array: the whole-tree reader's message.
  message = llvm::toString(
      ExecutionTrace::parseText("{\"schema\": \"1.0.1\"}", "n.json")
          .takeError());
  EXPECT_NE(message.find("no \"nodes\" array"), std::string::npos) << message;
}

// A "nodes" key given twice: the last one counts, as in llvm::json's tree
// (the sliced reader read none of them at first).
TEST(ExecutionTrace, RepeatedNodesKeyReadsTheLast) {
  const char *text = R"json({"schema": "1.0.1", "nodes": [
    {"id": 1, "name": "a", "parent": 1}, {"id": 3, "name": "c", "parent": 1}],
    "nodes": [{"id": 2, "name": "b", "parent": 2}]})json";
  for (size_t sliceBytes : {size_t(1), ExecutionTrace::kSliceBytes}) {
    llvm::Expected<ExecutionTrace> et =
        ExecutionTrace::parseText(text, "dup.json", sliceBytes);
    ASSERT_TRUE(bool(et)) << llvm::toString(et.takeError());
    ASSERT_EQ(et->nodes().size(), 1u);
    EXPECT_EQ(et->nodes()[0].name, "b");
  }
  // Last given as something else: no "nodes" array, as the tree reader says.
  std::string message = llvm::toString(
      ExecutionTrace::parseText(
          R"json({"schema": "1.0.1", "nodes": [{"id": 1}], "nodes": 5})json",
          "n.json")
          .takeError());
  EXPECT_NE(message.find("no \"nodes\" array"), std::string::npos) << message;
}

// Kernel names the classifier places, Hopper's among them: cuBLAS's
// nvjet GEMMs, cuDNN's generated SDPA kernels (whose names also say
// "fprop", a convolution's word) and FlashAttention's.
TEST(KinetoTrace, ClassifiesHopperLibraryKernels) {
  auto classOf = [](const char *name) {
    DeviceEvent event;
    event.kind = DeviceEventKind::Kernel;
    event.name = name;
    return classifyDeviceEvent(event).str();
  };
  EXPECT_EQ(classOf("nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NTN"), "gemm");
  EXPECT_EQ(classOf("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_"
                    "f16_knob_3_64x64x128_4x1x1_kernel0_0"),
            "attention");
  EXPECT_EQ(classOf("void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128,"
                    " 128, 64, 4, false, false, cutlass::bfloat16_t>>"),
            "attention");
  EXPECT_EQ(classOf("fmha_cutlassF_bf16_aligned_64x128_rf_sm80"), "attention");
  EXPECT_EQ(
      classOf("sm80_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc"),
      "conv");
  EXPECT_EQ(classOf("ampere_sgemm_128x64_tn"), "gemm");
}
