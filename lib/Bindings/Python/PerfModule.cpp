//===- PerfModule.cpp - The _perf Python extension ------------------------===//
//
// The native half of the `perf` Python package (python/perf): the catalog,
// kernel prices from a model stack, estimates of whole steps and the
// importers, each as one call. Errors become perf.Error with the message the
// tools print; nothing aborts the interpreter. The Python half turns the
// JSON into dicts and keyword arguments into kernel attributes.
//
//===----------------------------------------------------------------------===//

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "perf/CostModel/KernelCostModel.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Dialect/WorkSchema.h"
#include "perf/Import/ModelConfigImport.h"
#include "perf/Import/OnnxImport.h"
#include "perf/Support/GpuSpec.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Version.h"
#include "perf/Tools/Registration.h"
#include "perf/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <dlfcn.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <stdexcept>

namespace py = pybind11;
using namespace perf;

namespace {

/// What every failure becomes in Python: perf.Error.
struct PerfError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename T> T unwrap(llvm::Expected<T> value) {
  if (!value)
    throw PerfError(llvm::toString(value.takeError()));
  return std::move(*value);
}

void unwrap(llvm::Error error) {
  if (error)
    throw PerfError(llvm::toString(std::move(error)));
}

/// The prefix this module is installed under
/// (<prefix>/lib/python3/dist-packages/perf/_perf.so): the first directory
/// above it that holds share/perf/models (the shipped model folder); empty
/// in a build tree, where defaultModelDir finds the source tree's.
std::string installPrefix() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&installPrefix), &info) ||
      !info.dli_fname)
    return "";
  llvm::StringRef dir = llvm::sys::path::parent_path(info.dli_fname);
  for (int up = 0; up < 6 && !dir.empty(); ++up) {
    dir = llvm::sys::path::parent_path(dir);
    llvm::SmallString<256> models(dir);
    llvm::sys::path::append(models, "share", "perf", "models");
    if (llvm::sys::fs::is_directory(models))
      return dir.str();
  }
  return "";
}

/// A context with the perf dialect and what perf IR may hold, collecting
/// every diagnostic (located) for the error message.
class Session {
public:
  Session() : context(registry()) {
    handler = std::make_unique<mlir::ScopedDiagnosticHandler>(
        &context, [this](mlir::Diagnostic &d) {
          llvm::raw_string_ostream os(diagnostics);
          // file:line:col as the tools print it, where there is one.
          if (auto file = mlir::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
            os << file.getFilename().getValue() << ":" << file.getLine() << ":"
               << file.getColumn() << ": ";
          else if (!mlir::isa<mlir::UnknownLoc>(d.getLocation()))
            os << d.getLocation() << ": ";
          if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
            os << "error: ";
          os << d.str() << "\n";
          return mlir::success();
        });
  }

  [[noreturn]] void fail(llvm::StringRef what) {
    std::string message = llvm::StringRef(diagnostics).trim().str();
    throw PerfError(message.empty() ? what.str() : message);
  }

  /// The module of a .mlir (text or bytecode), an .onnx file, or IR text.
  mlir::OwningOpRef<mlir::ModuleOp> load(const std::string &path,
                                         const std::string &ir,
                                         int64_t onnxBatch,
                                         llvm::StringRef irName = "<ir>") {
    mlir::OwningOpRef<mlir::ModuleOp> module;
    if (!path.empty() && llvm::StringRef(path).ends_with(".onnx")) {
      OnnxImportOptions options;
      options.batchSize = onnxBatch;
      module = importOnnxFile(&context, path, options);
    } else if (!path.empty()) {
      auto buffer = unwrap(readInputFile(path));
      llvm::SourceMgr sourceMgr;
      sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
      module = mlir::parseSourceFile<mlir::ModuleOp>(
          sourceMgr, mlir::ParserConfig(&context));
    } else {
      module = mlir::parseSourceString<mlir::ModuleOp>(
          ir, mlir::ParserConfig(&context), irName);
    }
    if (!module)
      fail("cannot read " + (path.empty() ? std::string("the IR") : path));
    return module;
  }

  static std::string print(mlir::ModuleOp module) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    return text;
  }

  mlir::MLIRContext context;
  std::string diagnostics;

private:
  static const mlir::DialectRegistry &registry() {
    static const mlir::DialectRegistry *r = [] {
      auto *registry = new mlir::DialectRegistry();
      registerPerfDialects(*registry);
      registerPerfPassesAndPipelines();
      registerPerfToolPasses();
      return registry;
    }();
    return *r;
  }
  std::unique_ptr<mlir::ScopedDiagnosticHandler> handler;
};

GpuSpec lookupDevice(const std::string &device) {
  if (llvm::StringRef(device).ends_with(".json"))
    return unwrap(loadGpuSpecFile(device));
  if (const GpuSpec *known = lookupGpu(device))
    return *known;
  throw PerfError("unknown device '" + device +
                  "': perf.devices() lists the catalog; or give a device "
                  "JSON file (docs/devices.md)");
}

/// "auto" (the default stack) reads the shipped model folder when no folder
/// is given, as perf-opt --estimate does.
std::string modelDirFor(const std::string &models, const std::string &dir) {
  if (!dir.empty() || (models != kAutoModelStack && !models.empty()))
    return dir;
  return defaultModelDir(installPrefix());
}

/// A model stack built once and asked for many kernels.
class CostModel {
public:
  CostModel(const std::string &models, const std::string &db,
            const std::string &modelDir) {
    CostModelOptions options;
    options.databasePath = db;
    options.mlModelDir = modelDirFor(models, modelDir);
    // "auto" without a folder (none shipped, none given) is the roofline.
    std::string names = models;
    if (names == kAutoModelStack && options.mlModelDir.empty())
      names = "roofline";
    stack = unwrap(createKernelCostStack(names, options));
  }

  /// Prices the kernel `text` (`perf.gemm {m = 1, ...}`, as a perf.op's work
  /// list writes it, checked by its verifier) on `device`: latency, model,
  /// FLOPs, bytes.
  py::tuple price(const std::string &text, const std::string &device) {
    GpuSpec gpu = lookupDevice(device);
    llvm::StringRef kind = llvm::StringRef(text).ltrim().take_until(
        [](char c) { return llvm::isSpace(c) || c == '{'; });
    if (!parseWorkMnemonic(kind))
      throw PerfError("'" + kind.str() + "' is unknown: not a kind of " +
                      "device work (perf.gemm, perf.conv2d, ...)");
    // Work is read as a perf.op's, so the text goes in one.
    std::string ir = "perf.op \"kernel\" : () -> () {\n" + text + "\n}\n";
    Session session;
    auto module = session.load("", ir, 0, text);
    KernelDesc desc;
    int kernels = 0;
    module->walk([&](FrameworkOp op) {
      for (WorkAttr work : op.getWorkList()) {
        if (!work.isKernel())
          continue;
        desc = work.getKernelDesc();
        ++kernels;
      }
    });
    if (kernels != 1)
      throw PerfError("expected one kernel op, got " + std::to_string(kernels));
    KernelCost cost;
    {
      py::gil_scoped_release release;
      cost = stack.estimate(desc, gpu);
    }
    return py::make_tuple(cost.latencyUs, cost.model, desc.totalFlops(),
                          desc.totalBytes());
  }

  std::vector<std::string> models() const { return stack.modelNames(); }

private:
  KernelCostStack stack;
};

/// `estimateOptions`: the estimate pipeline's options in its textual form
/// (`models=roofline launch=cuda-graph`), which EstimateOptions.def lists.
py::tuple estimate(const std::string &path, const std::string &ir,
                   const std::string &device, const std::string &pipeline,
                   const std::string &estimateOptions, bool timeline,
                   int64_t onnxBatch) {
  Session session;
  EstimateOptions options;
  options.kernelCost.models = kAutoModelStack;
  options.criticalPath.annotate = false;
  unwrap(applyEstimateOptions(options, estimateOptions));
  KernelCostOptions &cost = options.kernelCost;
  if (cost.models.empty())
    cost.models = kAutoModelStack;
  cost.mlModelDir = modelDirFor(cost.models, cost.mlModelDir);
  if (cost.models == kAutoModelStack && cost.mlModelDir.empty())
    cost.models = "roofline";
  auto module = session.load(path, ir, onnxBatch);
  llvm::Expected<EstimateResult> result = [&] {
    py::gil_scoped_release release;
    return runEstimate(*module, device, pipeline, options, timeline);
  }();
  EstimateResult r = unwrap(std::move(result));
  return py::make_tuple(r.report, r.timeline);
}

std::string importConfig(const std::string &path, const StepFlags &flags) {
  Session session;
  auto text = unwrap(readInputFile(path));
  StepOptions options = unwrap(parseStepOptions(flags));
  auto module = perf::importModelConfig(&session.context, text->getBuffer(),
                                        path, options);
  if (!module)
    session.fail("cannot import " + path);
  return Session::print(*module);
}

std::string importOnnx(const std::string &path, int64_t batch) {
  Session session;
  return Session::print(*session.load(path, "", batch));
}

/// The MLIR spelling of a dtype name the tools accept ("fp32" -> "f32").
std::string mlirType(const std::string &name) {
  std::optional<DType> dtype = parseDType(name);
  if (!dtype)
    throw PerfError("unknown dtype '" + name + "'");
  Session session;
  std::string text;
  llvm::raw_string_ostream os(text);
  getElementType(&session.context, *dtype).print(os);
  return text;
}

} // namespace

PYBIND11_MODULE(_perf, m) {
  m.doc() = "The native half of the perf package; use `import perf`.";
  py::register_exception<PerfError>(m, "Error", PyExc_RuntimeError);
  m.def("version", [] { return versionString().str(); });
  m.def("devices", [] {
    std::vector<std::string> names;
    for (const GpuSpec &g : gpuCatalog())
      names.push_back(g.name);
    return names;
  });
  m.def("device_json", [](const std::string &device) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << toJson(lookupDevice(device));
    return text;
  });
  m.def("mlir_type", &mlirType);
  py::class_<CostModel>(m, "CostModel")
      .def(py::init<const std::string &, const std::string &,
                    const std::string &>(),
           py::arg("models"), py::arg("db"), py::arg("model_dir"))
      .def("price", &CostModel::price)
      .def("models", &CostModel::models);
  m.def("estimate", &estimate);
  py::class_<StepFlags>(m, "StepFlags")
      .def(py::init<>())
      .def_readwrite("batch", &StepFlags::batch)
      .def_readwrite("seq", &StepFlags::seq)
      .def_readwrite("context", &StepFlags::context)
      .def_readwrite("phase", &StepFlags::phase)
      .def_readwrite("dtype", &StepFlags::dtype)
      .def_readwrite("attention", &StepFlags::attention)
      .def_readwrite("head", &StepFlags::head)
      .def_readwrite("optimizer", &StepFlags::optimizer)
      .def_readwrite("routing", &StepFlags::routing)
      .def_readwrite("kv_cache", &StepFlags::kvCache)
      .def_readwrite("master_weights", &StepFlags::masterWeights)
      .def_readwrite("engine", &StepFlags::engine)
      .def_readwrite("kv_block_size", &StepFlags::kvBlockSize)
      .def_readwrite("loss", &StepFlags::loss);
  m.def("import_model_config", &importConfig);
  m.def("import_onnx", &importOnnx);
}
