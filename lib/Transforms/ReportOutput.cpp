//===- ReportOutput.cpp ---------------------------------------------------===//

#include "perf/Transforms/ReportOutput.h"
#include "perf/Support/KernelSignature.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <tuple>
#include <vector>

using namespace mlir;

namespace {
/// The standard report stream and whether a JSON report went there.
struct StandardReportStream {
  llvm::raw_ostream *os = nullptr;
  bool wroteJson = false;
};
StandardReportStream &standardReportStream() {
  static StandardReportStream stream;
  return stream;
}
} // namespace

void perf::setStandardReportStream(llvm::raw_ostream &os) {
  standardReportStream().os = &os;
}

LogicalResult perf::writeReport(Operation *op, llvm::StringRef path,
                                llvm::StringRef text, bool json) {
  if (path.empty())
    return success();
  if (path == "-") {
    StandardReportStream &standard = standardReportStream();
    if (json && standard.wroteJson)
      return op->emitError(
          "a second JSON report would follow another on the same stream, "
          "which a JSON reader rejects; write one of them to a file "
          "(output=FILE, or format=text)");
    standard.wroteJson |= json;
    llvm::raw_ostream &os = standard.os ? *standard.os : llvm::outs();
    os << text;
    os.flush();
    return success();
  }
  // A temporary file renamed into place: an interrupted run leaves the old
  // report or none, never half of one.
  if (llvm::Error e = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << text;
        return llvm::Error::success();
      }))
    return op->emitError("cannot write '")
           << path << "': " << llvm::toString(std::move(e));
  return success();
}

LogicalResult perf::writeKernelList(ModuleOp module, llvm::StringRef path) {
  // (device, dtype, kind, signature) -> kernels with that key, in the order
  // the graphs first launch them, so a measurement campaign that stops
  // early has the model's first kernels.
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Key, size_t> index;
  std::vector<std::pair<Key, int64_t>> counts;
  (void)forEachGraph(module, [&](GraphOp graph) {
    std::string device;
    if (GpuAttr gpu = graph.getGpuTarget())
      device = gpu.getSpec().name;
    // A step repeats its kernels: the key of each distinct one is made
    // once per graph (the device is the graph's).
    llvm::DenseMap<WorkAttr, size_t> entryOf;
    graph.walk([&](FrameworkOp fw) {
      if (!fw.hasWork())
        return;
      int64_t copies = UnrolledWalk::copiesOf(fw);
      for (WorkAttr kernel : fw.getWorkList()) {
        if (!kernel.isKernel())
          continue;
        auto [entry, fresh] = entryOf.try_emplace(kernel, 0);
        if (fresh) {
          KernelDesc desc = kernel.getKernelDesc();
          Key key{device, dtypeName(desc.dtype).str(),
                  kernelKindName(desc.kind).str(), kernelSignature(desc)};
          auto [it, inserted] = index.try_emplace(key, counts.size());
          if (inserted)
            counts.emplace_back(std::move(key), 0);
          entry->second = it->second;
        }
        counts[entry->second].second += copies;
      }
    });
    return success();
  });
  llvm::json::Array kernels;
  for (const auto &[key, count] : counts)
    kernels.push_back(llvm::json::Object{{"device", std::get<0>(key)},
                                         {"dtype", std::get<1>(key)},
                                         {"kind", std::get<2>(key)},
                                         {"signature", std::get<3>(key)},
                                         {"count", count}});
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"schema", "perf.kernel_list/1"},
                                   {"kernels", std::move(kernels)}}))
     << "\n";
  return writeReport(module, path, text, /*json=*/true);
}
