//===- ChakraExport.cpp - perf IR to Chakra execution traces --------------===//

#include "perf/Export/ChakraExport.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "perf/Comm/ChakraTraceFile.h"
#include "perf/Transforms/GraphWalk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>

using namespace perf;
using namespace mlir;

static std::optional<chakra::CommType> commTypeOf(WorkAttr work) {
  switch (work.getKind()) {
  case WorkKind::AllReduce:
    return chakra::CommType::AllReduce;
  case WorkKind::AllGather:
    return chakra::CommType::AllGather;
  case WorkKind::ReduceScatter:
    return chakra::CommType::ReduceScatter;
  case WorkKind::AllToAll:
    return chakra::CommType::AllToAll;
  default:
    return std::nullopt;
  }
}

FailureOr<std::map<int64_t, chakra::Trace>>
perf::exportChakraTraces(GraphOp graph) {
  std::map<int64_t, chakra::Trace> traces;
  // Last node of each (rank, stream), for control dependencies.
  std::map<std::pair<int64_t, int64_t>, uint64_t> lastOnStream;
  // Last node each framework op produced on each rank, for data deps.
  llvm::DenseMap<Operation *, std::map<int64_t, uint64_t>> lastOfOp;
  int64_t tag = 0;

  auto addNode = [&](int64_t rank, int64_t stream, chakra::Node node,
                     FrameworkOp parent) {
    chakra::Trace &trace = traces[rank];
    node.id = trace.nodes.size();
    auto key = std::make_pair(rank, stream);
    auto it = lastOnStream.find(key);
    if (it != lastOnStream.end())
      node.ctrlDeps.push_back(it->second);
    for (Value input : parent.getInputs())
      if (Operation *def = input.getDefiningOp()) {
        auto producer = lastOfOp.find(def);
        if (producer == lastOfOp.end())
          continue;
        auto onRank = producer->second.find(rank);
        if (onRank != producer->second.end() &&
            !llvm::is_contained(node.dataDeps, onRank->second))
          node.dataDeps.push_back(onRank->second);
      }
    lastOnStream[key] = node.id;
    lastOfOp[parent][rank] = node.id;
    trace.nodes.push_back(std::move(node));
  };

  for (Operation &op : graph.getBodyBlock()) {
    if (isa<RepeatOp>(op))
      return op.emitOpError("is not supported by --export-chakra: run "
                            "--perf-unroll-repeat before it");
    auto fw = dyn_cast<FrameworkOp>(op);
    if (!fw)
      continue;
    for (WorkAttr work : fw.getWorkList()) {
      auto latency = work.getAs<FloatAttr>(kLatencyAttr);
      if (!latency)
        return fw.emitWorkError(work)
               << "has no 'perf.latency_us'; run --estimate (or the cost "
                  "passes) before --export-chakra";
      uint64_t us = static_cast<uint64_t>(
          std::llround(std::max(0.0, latency.getValueAsDouble())));
      std::string name = (fw.getOpName() + "/" + work.getKindName()).str();
      if (work.isKernel()) {
        KernelDesc desc = work.getKernelDesc();
        chakra::Node node = chakra::makeComputeNode(0, name, us);
        node.setInt64("num_ops", int64_t(desc.totalFlops()));
        node.setInt64("tensor_size", int64_t(desc.totalBytes()));
        addNode(work.getDeviceId(), work.getStreamId(), std::move(node), fw);
        continue;
      }
      ArrayRef<int64_t> group = work.getGroupIds();
      int64_t bytes = work.getCollectiveBytes();
      int64_t stream = work.getStreamId();
      if (std::optional<chakra::CommType> type = commTypeOf(work)) {
        for (int64_t rank : group)
          addNode(rank, stream,
                  chakra::makeCollectiveNode(0, name, *type, bytes, us), fw);
        continue;
      }
      // Send or recv: group is [source, destination].
      int32_t src = int32_t(group[0]), dst = int32_t(group[1]);
      addNode(src, stream,
              chakra::makePointToPointNode(0, name, /*isSend=*/true, src, dst,
                                           int32_t(tag), bytes, us),
              fw);
      addNode(dst, stream,
              chakra::makePointToPointNode(0, name, /*isSend=*/false, src, dst,
                                           int32_t(tag), bytes, us),
              fw);
      ++tag;
    }
  }
  return traces;
}

static llvm::StringRef nodeTypeName(chakra::NodeType type) {
  switch (type) {
  case chakra::NodeType::Compute:
    return "COMP";
  case chakra::NodeType::CommCollective:
    return "COMM_COLL";
  case chakra::NodeType::CommSend:
    return "COMM_SEND";
  case chakra::NodeType::CommRecv:
    return "COMM_RECV";
  case chakra::NodeType::MemLoad:
    return "MEM_LOAD";
  case chakra::NodeType::MemStore:
    return "MEM_STORE";
  case chakra::NodeType::Metadata:
    return "METADATA";
  case chakra::NodeType::Invalid:
    break;
  }
  return "INVALID";
}

static llvm::StringRef commTypeName(chakra::CommType type) {
  switch (type) {
  case chakra::CommType::AllReduce:
    return "ALL_REDUCE";
  case chakra::CommType::AllGather:
    return "ALL_GATHER";
  case chakra::CommType::ReduceScatter:
    return "REDUCE_SCATTER";
  case chakra::CommType::AllToAll:
    return "ALL_TO_ALL";
  default:
    return "OTHER";
  }
}

static void printList(llvm::raw_ostream &os, const std::vector<uint64_t> &l) {
  os << "[";
  llvm::interleaveComma(l, os);
  os << "]";
}

void perf::registerChakraTranslations() {
  static llvm::cl::opt<std::string> prefix(
      "chakra-prefix",
      llvm::cl::desc("--export-chakra writes <prefix>.<rank>.et per device"),
      llvm::cl::init(""));

  TranslateFromMLIRRegistration exportChakra(
      "export-chakra",
      "Write one Chakra execution trace per device (ASTRA-sim input)",
      [](Operation *root, llvm::raw_ostream &os) -> LogicalResult {
        if (prefix.empty())
          return root->emitError("--export-chakra needs --chakra-prefix=<path>"
                                 " (files are <path>.<rank>.et)");
        bool any = false;
        LogicalResult result = forEachGraph(root, [&](GraphOp graph) {
          FailureOr<std::map<int64_t, chakra::Trace>> traces =
              exportChakraTraces(graph);
          if (failed(traces))
            return failure();
          any = true;
          for (auto &[rank, trace] : *traces) {
            std::string path = prefix + "." + std::to_string(rank) + ".et";
            if (llvm::Error e = chakra::writeTraceFile(trace, path)) {
              graph.emitError() << llvm::toString(std::move(e));
              return failure();
            }
            std::map<chakra::NodeType, int> byType;
            for (const chakra::Node &n : trace.nodes)
              ++byType[n.type];
            os << "rank " << rank << ": " << trace.nodes.size() << " nodes";
            for (auto [type, count] : byType)
              os << ", " << nodeTypeName(type) << " " << count;
            os << "\n";
          }
          return success();
        });
        if (failed(result))
          return failure();
        if (!any)
          return root->emitError("no perf.graph to export");
        return success();
      },
      [](DialectRegistry &registry) { registry.insert<PerfDialect>(); });

  TranslateRegistration dumpChakra(
      "dump-chakra", "Print a Chakra execution trace (.et) as text",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         llvm::raw_ostream &os, MLIRContext *context) -> LogicalResult {
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        chakra::Trace trace;
        std::string error;
        if (!chakra::decodeTrace(buffer->getBuffer().str(), trace, error)) {
          llvm::errs() << buffer->getBufferIdentifier() << ": " << error
                       << "\n";
          return failure();
        }
        os << "chakra " << trace.version << ", " << trace.nodes.size()
           << " nodes\n";
        for (const chakra::Node &n : trace.nodes) {
          os << "node " << n.id << " " << nodeTypeName(n.type) << " '" << n.name
             << "' dur=" << n.durationMicros;
          if (std::optional<chakra::CommType> t = n.commType())
            os << " comm=" << commTypeName(*t);
          if (std::optional<int64_t> size = n.commSize())
            os << " size=" << *size;
          if (const chakra::Attr *src = n.findAttr("comm_src"))
            os << " src=" << src->intValue;
          if (const chakra::Attr *dst = n.findAttr("comm_dst"))
            os << " dst=" << dst->intValue;
          os << " ctrl=";
          printList(os, n.ctrlDeps);
          os << " data=";
          printList(os, n.dataDeps);
          os << "\n";
        }
        return success();
      });
}
