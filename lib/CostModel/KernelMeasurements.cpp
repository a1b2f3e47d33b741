//===- KernelMeasurements.cpp - Measured kernel latencies -----------------===//

#include "perf/CostModel/KernelMeasurements.h"
#include "perf/CostModel/DbModel.h"
#include "perf/Support/InputError.h"
#include "perf/Support/KernelSignature.h"
#include "perf/Support/Limits.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cmath>
#include <tuple>

using namespace perf;

std::vector<std::string> perf::splitCsvRecord(llvm::StringRef line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char ch = line[i];
    if (quoted) {
      if (ch == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field.push_back(ch);
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (ch != '\r') {
      field.push_back(ch);
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

llvm::Expected<std::vector<KernelMeasurement>>
perf::parseNeuSightCsv(llvm::StringRef text, llvm::StringRef path,
                       SkippedOps *skipped) {
  std::vector<KernelMeasurement> rows;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/true);
  if (lines.empty() || lines[0].trim().empty())
    return fileError(path, 1, 0, "empty file, expected a header");
  std::vector<std::string> header = splitCsvRecord(lines[0]);
  llvm::StringMap<unsigned> column;
  for (unsigned i = 0; i < header.size(); ++i)
    column[llvm::StringRef(header[i]).trim()] = i;
  for (const char *required : {"OPName", "Latency", "Device"})
    if (!column.count(required))
      return fileError(path, 1, 0,
                       llvm::Twine("missing column '") + required + "'");

  for (unsigned lineNo = 2; lineNo <= lines.size(); ++lineNo) {
    llvm::StringRef line = lines[lineNo - 1];
    if (line.trim().empty())
      continue;
    std::vector<std::string> fields = splitCsvRecord(line);
    auto bad = [&](const llvm::Twine &message) {
      return fileError(path, lineNo, 0, message);
    };
    auto text = [&](llvm::StringRef col) -> llvm::StringRef {
      auto it = column.find(col);
      if (it == column.end() || it->second >= fields.size())
        return "";
      return llvm::StringRef(fields[it->second]).trim();
    };
    auto integer = [&](llvm::StringRef col) -> llvm::Expected<int64_t> {
      int64_t v = 0;
      llvm::StringRef s = text(col);
      if (s.empty() || s.getAsInteger(10, v) || v < 0 ||
          !withinLimit(v, kMaxExtent))
        return bad("column '" + col +
                   "' must be an integer from 0 to 2^40 (max-extent), "
                   "got '" +
                   s + "'");
      return v;
    };
#define PERF_INT(var, col)                                                     \
  auto var##OrErr = integer(col);                                              \
  if (!var##OrErr)                                                             \
    return var##OrErr.takeError();                                             \
  int64_t var = *var##OrErr;

    KernelMeasurement m;
    m.file = path.str();
    m.source = "neusight";
    m.line = lineNo;
    m.op = text("OPName").str();
    m.device = text("Device").str();
    double ms = 0;
    if (text("Latency").getAsDouble(ms) || !isFiniteAtLeast(ms, 0) || ms == 0)
      return bad("column 'Latency' must be a positive "
                 "number of milliseconds, got '" +
                 text("Latency") + "'");
    m.latencyUs = ms * 1e3;
    KernelDesc &k = m.kernel;
    k.dtype = DType::F32;
    k.name = text("Kernel Name").str();
    llvm::StringRef op = m.op;
    if (op == "bmm" || op == "linear") {
      PERF_INT(b, "B");
      PERF_INT(rowsM, "M");
      PERF_INT(inN, "N");
      PERF_INT(outK, "K");
      k.kind = KernelKind::Gemm;
      // Reduction over N, output M x K (checked against the launch grids).
      if (op == "bmm") {
        k.batch = b;
        k.m = rowsM;
      } else {
        k.batch = 1;
        k.m = b * rowsM;
        k.transB = true; // nn.Linear's weight is [out, in].
      }
      k.k = inN;
      k.n = outK;
    } else if (op == "conv") {
      PERF_INT(b, "B");
      PERF_INT(cin, "Input_Channel");
      PERF_INT(cout, "Output_Channel");
      PERF_INT(ksize, "Kernel_Szie");
      PERF_INT(size, "Input_Size");
      PERF_INT(stride, "Stride");
      PERF_INT(pad, "Padding");
      k.kind = KernelKind::Conv2d;
      k.batch = b;
      k.c = cin;
      k.outChannels = cout;
      k.r = k.s = ksize;
      k.h = k.w = size;
      k.strideH = k.strideW = std::max<int64_t>(stride, 1);
      k.padH = k.padW = pad;
    } else if (llvm::is_contained({"add", "sub", "mul", "div", "pow"}, op) ||
               llvm::is_contained({"addu", "subu", "mulu", "divu", "powu",
                                   "relu", "gelu", "tanh"},
                                  op)) {
      PERF_INT(b, "B");
      PERF_INT(h, "H");
      k.kind = KernelKind::Elementwise;
      k.numElements = b * h;
      // Two tensors, or one and a Python scalar (NeuSight's "u" ops).
      bool binary = llvm::is_contained({"add", "sub", "mul", "div", "pow"}, op);
      k.numInputs = binary ? 2 : 1;
      k.op = op.str();
      // erf-based GELU, tanh and pow are a handful of FLOPs per element.
      bool transcendental =
          llvm::is_contained({"gelu", "tanh", "pow", "powu"}, op);
      k.flopsPerElement = transcendental ? 10 : 1;
    } else if (op == "softmax" || op == "ln") {
      PERF_INT(b, "B");
      PERF_INT(h, "H");
      k.kind = op == "softmax" ? KernelKind::Softmax : KernelKind::LayerNorm;
      k.rows = b;
      k.cols = h;
    } else if (skipped) {
      ++(*skipped)[op.str()];
      continue;
    } else {
      return bad(
          "unknown operator '" + op +
          "' (known: bmm, linear, conv, add, sub, mul, div, pow, their "
          "tensor-scalar forms addu ... powu, relu, gelu, tanh, softmax, ln)");
    }
#undef PERF_INT
    rows.push_back(std::move(m));
  }
  return rows;
}

llvm::Expected<std::vector<KernelMeasurement>>
perf::readNeuSightCsv(llvm::StringRef path, SkippedOps *skipped) {
  llvm::Expected<std::string> text = readMaybeGzipFile(path);
  if (!text)
    return text.takeError();
  return parseNeuSightCsv(*text, path, skipped);
}

/// The CSV files one folder level below `dir` (`layout` names that level
/// in the error when there are none), sorted.
static llvm::Expected<std::vector<std::string>>
listCsvFiles(llvm::StringRef dir, llvm::StringRef layout) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator sub(dir, ec), end; sub != end && !ec;
       sub.increment(ec)) {
    if (!llvm::sys::fs::is_directory(sub->path()))
      continue;
    for (llvm::sys::fs::directory_iterator f(sub->path(), ec), fend;
         f != fend && !ec; f.increment(ec)) {
      llvm::StringRef p = f->path();
      if (p.ends_with(".csv") || p.ends_with(".csv.gz"))
        files.push_back(p.str());
    }
  }
  if (ec)
    return llvm::createStringError(ec, "cannot list '" + dir + "'");
  if (files.empty())
    return llvm::createStringError("no " + layout + ".csv[.gz] files under '" +
                                   dir + "'");
  llvm::sort(files);
  return files;
}

/// Every CSV of `dir` (laid out as `layout`) read by `read`, in file order.
static llvm::Expected<std::vector<KernelMeasurement>>
readCsvDir(llvm::StringRef dir, llvm::StringRef layout, SkippedOps *skipped,
           llvm::function_ref<llvm::Expected<std::vector<KernelMeasurement>>(
               llvm::StringRef, SkippedOps *)>
               read) {
  auto files = listCsvFiles(dir, layout);
  if (!files)
    return files.takeError();
  std::vector<KernelMeasurement> all;
  for (const std::string &f : *files) {
    auto rows = read(f, skipped);
    if (!rows)
      return rows.takeError();
    for (KernelMeasurement &m : *rows)
      all.push_back(std::move(m));
  }
  return all;
}

llvm::Expected<std::vector<KernelMeasurement>>
perf::readNeuSightDir(llvm::StringRef dir, SkippedOps *skipped) {
  return readCsvDir(dir, "<op>/<gpu>", skipped, readNeuSightCsv);
}

llvm::Expected<GpuSpec> perf::vidurDevice(llvm::StringRef folder) {
  static const std::pair<const char *, const char *> named[] = {
      {"a100", "A100-SXM4-80GB"},
      {"a40", "A40"},
      {"h100", "H100-SXM5-80GB"},
  };
  for (const auto &[dir, gpu] : named)
    if (folder.equals_insensitive(dir))
      return *lookupGpu(gpu);
  if (const GpuSpec *known = lookupGpu(folder))
    return *known;
  return llvm::createStringError(
      "Vidur folder '" + folder +
      "' names no known GPU (a100, a40, h100 or a catalog GPU name)");
}

llvm::Expected<std::vector<KernelMeasurement>>
perf::parseVidurCsv(llvm::StringRef text, llvm::StringRef path,
                    llvm::StringRef device, SkippedOps *skipped) {
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/true);
  if (lines.empty() || lines[0].trim().empty())
    return fileError(path, 1, 0, "empty file, expected a header");
  std::vector<std::string> header = splitCsvRecord(lines[0]);
  llvm::StringMap<unsigned> column;
  // The ops of the file, in header order: time_stats.<op>.median.
  std::vector<std::pair<std::string, unsigned>> ops;
  for (unsigned i = 0; i < header.size(); ++i) {
    llvm::StringRef name = llvm::StringRef(header[i]).trim();
    column[name] = i;
    if (name.consume_front("time_stats.") && name.consume_back(".median"))
      ops.push_back({name.str(), i});
  }
  if (ops.empty())
    return fileError(
        path, 1, 0, "no 'time_stats.<op>.median' column (not a Vidur profile)");
  for (const char *required :
       {"n_head", "n_kv_head", "n_embd", "n_expanded_embd", "use_gated_mlp",
        "num_tokens", "num_tensor_parallel_workers"})
    if (!column.count(required))
      return fileError(path, 1, 0,
                       llvm::Twine("missing column '") + required + "'");
  std::vector<KernelMeasurement> rows;
  for (unsigned lineNo = 2; lineNo <= lines.size(); ++lineNo) {
    llvm::StringRef line = lines[lineNo - 1];
    if (line.trim().empty())
      continue;
    std::vector<std::string> fields = splitCsvRecord(line);
    auto bad = [&](const llvm::Twine &message) {
      return fileError(path, lineNo, 0, message);
    };
    auto field = [&](unsigned index) -> llvm::StringRef {
      return index < fields.size() ? llvm::StringRef(fields[index]).trim()
                                   : llvm::StringRef();
    };
    auto positive = [&](llvm::StringRef col) -> llvm::Expected<int64_t> {
      int64_t v = 0;
      llvm::StringRef s = field(column[col]);
      if (s.getAsInteger(10, v) || v <= 0 || !withinLimit(v, kMaxExtent))
        return bad("column '" + col +
                   "' must be an integer from 1 to 2^40 (max-extent), got '" +
                   s + "'");
      return v;
    };
    int64_t size[6];
    const char *names[6] = {"n_head",     "n_kv_head",
                            "n_embd",     "n_expanded_embd",
                            "num_tokens", "num_tensor_parallel_workers"};
    for (unsigned i = 0; i < 6; ++i) {
      auto v = positive(names[i]);
      if (!v)
        return v.takeError();
      size[i] = *v;
    }
    auto [heads, kvHeads, hidden, expanded, tokens, tp] =
        std::tuple(size[0], size[1], size[2], size[3], size[4], size[5]);
    if (hidden % heads)
      return bad("n_embd " + std::to_string(hidden) +
                 " is not a multiple of n_head " + std::to_string(heads));
    bool gated = field(column["use_gated_mlp"]).equals_insensitive("true");
    int64_t headDim = hidden / heads;
    for (const auto &[op, index] : ops) {
      double ms = 0;
      if (field(index).getAsDouble(ms) || !isFiniteAtLeast(ms, 0) || ms == 0)
        return bad("column 'time_stats." + op +
                   ".median' must be a positive number "
                   "of milliseconds, got '" +
                   field(index) + "'");
      KernelMeasurement m;
      m.file = path.str();
      m.source = "vidur";
      m.line = lineNo;
      m.op = op;
      m.device = device.str();
      m.latencyUs = ms * 1e3;
      KernelDesc &k = m.kernel;
      k.dtype = DType::F16;
      auto gemm = [&](int64_t in, int64_t out) {
        k.kind = KernelKind::Gemm;
        k.tensorCores = true;
        k.m = tokens;
        k.k = in;
        k.n = out;
        k.transB = true; // nn.Linear's weight is [out, in].
      };
      auto elementwise = [&](llvm::StringRef name, int64_t elements,
                             int64_t inputs, double flops) {
        k.kind = KernelKind::Elementwise;
        k.op = name.str();
        k.numElements = elements;
        k.numInputs = inputs;
        k.flopsPerElement = flops;
      };
      if (op == "attn_pre_proj") {
        gemm(hidden, (heads + 2 * kvHeads) * headDim / tp);
      } else if (op == "attn_post_proj") {
        gemm(hidden / tp, hidden);
      } else if (op == "mlp_up_proj") {
        gemm(hidden, (gated ? 2 : 1) * expanded / tp);
      } else if (op == "mlp_down_proj") {
        gemm(expanded / tp, hidden);
      } else if (op == "input_layernorm" || op == "post_attention_layernorm") {
        k.kind = KernelKind::LayerNorm;
        k.rows = tokens;
        k.cols = hidden;
      } else if (op == "mlp_act") {
        // vLLM's fused SiluAndMul reads both halves of the up projection.
        // Library kernels are named with their library: they are fitted
        // apart from ATen's element-wise loops (RooflineCalibration).
        if (gated)
          elementwise("vllm::silu_and_mul", tokens * expanded / tp, 2, 5);
        else
          elementwise("gelu", tokens * expanded / tp, 1, 10);
      } else if (op == "attn_rope") {
        // vLLM's rotary kernel rotates the query and key heads in place
        // (cos/sin cached).
        elementwise("vllm::rotary_embedding",
                    tokens * (heads + kvHeads) * headDim / tp, 1, 3);
      } else if (op == "add") {
        elementwise("add", tokens * hidden, 2, 1);
      } else if (skipped) {
        ++(*skipped)[op];
        continue;
      } else {
        return bad(
            "operator '" + op +
            "' is not one kernel perf-eval knows (known: attn_pre_proj, "
            "attn_post_proj, mlp_up_proj, mlp_down_proj, input_layernorm, "
            "post_attention_layernorm, mlp_act, attn_rope, add)");
      }
      rows.push_back(std::move(m));
    }
  }
  return rows;
}

/// Whether `text` starts with a Vidur profile's header.
static bool isVidurCsv(llvm::StringRef text) {
  return text.take_until([](char c) { return c == '\n'; })
      .contains("time_stats.");
}

llvm::Expected<std::vector<KernelMeasurement>>
perf::readMeasurementCsv(llvm::StringRef path, SkippedOps *skipped) {
  llvm::Expected<std::string> text = readMaybeGzipFile(path);
  if (!text)
    return text.takeError();
  if (!isVidurCsv(*text))
    return parseNeuSightCsv(*text, path, skipped);
  llvm::StringRef folder =
      llvm::sys::path::filename(llvm::sys::path::parent_path(path));
  auto gpu = vidurDevice(folder);
  if (!gpu)
    return fileError(path, llvm::toString(gpu.takeError()));
  return parseVidurCsv(*text, path, gpu->name, skipped);
}

llvm::Expected<std::vector<KernelMeasurement>>
perf::readVidurDir(llvm::StringRef dir, SkippedOps *skipped) {
  return readCsvDir(dir, "<gpu>/<model>", skipped, readMeasurementCsv);
}

llvm::Expected<PerfDbMeasurements>
perf::readPerfDatabase(llvm::StringRef path,
                       llvm::function_ref<bool(llvm::StringRef)> skip) {
  auto db = PerfDatabase::openReadOnly(path);
  if (!db)
    return db.takeError();
  auto entries = (*db)->entries();
  if (!entries)
    return entries.takeError();
  PerfDbMeasurements out;
  for (const PerfDbEntry &e : *entries) {
    if (skip && skip(e.device))
      continue;
    if (!out.devices.count(e.device)) {
      // The spec perf-bench --probe stored with the measurements, else the
      // catalog's.
      auto stored = (*db)->deviceSpecJson(e.device);
      if (!stored)
        return stored.takeError();
      if (!stored->empty()) {
        std::string where =
            (path + ": device '" + e.device + "' spec_json").str();
        auto spec = parseGpuSpecText(*stored, where);
        if (!spec)
          return spec.takeError();
        out.devices[e.device] = *spec;
      } else if (const GpuSpec *known = lookupGpu(e.device)) {
        out.devices[e.device] = *known;
      } else {
        return fileError(path, "device '" + e.device +
                                   "' has no spec in the database and is "
                                   "not in the GPU catalog");
      }
    }
    auto kernel = parseKernelSignature(e.kind, e.signature);
    if (!kernel)
      return fileError(path, llvm::toString(kernel.takeError()));
    std::optional<DType> dtype = parseDType(e.dtype);
    if (!dtype)
      return fileError(path, "unknown dtype '" + e.dtype + "'");
    KernelMeasurement m;
    m.kernel = std::move(*kernel);
    m.kernel.dtype = *dtype;
    m.kernel.tensorCores = runsOnTensorCores(m.kernel.kind, *dtype);
    m.kernel.name = e.kernelName;
    m.device = e.device;
    m.op = e.kind + "." + e.dtype;
    m.latencyUs = e.latencyUs;
    m.file = path.str();
    m.source = e.source;
    m.line = static_cast<unsigned>(e.rowid);
    // perf-bench names its timing last: "... cupti" (device busy time) or
    // "... events" (the launch included).
    m.timedAlone = !llvm::StringRef(e.source).ends_with(" cupti");
    out.rows.push_back(std::move(m));
  }
  return out;
}

llvm::Expected<GpuSpec> perf::neuSightDevice(llvm::StringRef dir,
                                             llvm::StringRef device) {
  std::string file = device.str();
  std::replace(file.begin(), file.end(), ' ', '_');
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, file + ".json");
  if (llvm::sys::fs::exists(path))
    return loadGpuSpecFile(path);
  if (const GpuSpec *known = lookupGpu(device))
    return *known;
  return llvm::createStringError("unknown device '" + device + "': no " + path +
                                 " and no catalog GPU of that name");
}

std::string perf::shortGpuName(llvm::StringRef device) {
  for (const char *name :
       {"A100", "H100", "H200", "V100", "P100", "T4", "P4", "L4"})
    if (device.contains(name)) {
      std::string s = name;
      if (s == "A100" || s == "H100")
        s += device.contains("80GB") ? "-80GB" : "-40GB";
      if (s == "H100-40GB")
        s = "H100";
      return s;
    }
  return device.str();
}

double PricedRow::relativeError() const {
  return (predictedUs - row->latencyUs) / row->latencyUs;
}

static ErrorStats scaledErrorStats(llvm::ArrayRef<PricedRow> rows,
                                   double scale) {
  ErrorStats s;
  s.count = rows.size();
  if (rows.empty())
    return s;
  double sumAbs = 0, sumLog = 0;
  size_t in10 = 0, in25 = 0;
  for (const PricedRow &r : rows) {
    double e = std::fabs((r.predictedUs * scale - r.row->latencyUs) /
                         r.row->latencyUs);
    sumAbs += e;
    sumLog += std::log(std::max(e, 1e-4));
    in10 += e <= 0.10;
    in25 += e <= 0.25;
  }
  double n = rows.size();
  s.mape = sumAbs / n;
  s.gmae = std::exp(sumLog / n);
  s.within10 = in10 / n;
  s.within25 = in25 / n;
  return s;
}

ErrorStats perf::computeErrorStats(llvm::ArrayRef<PricedRow> rows) {
  return scaledErrorStats(rows, 1.0);
}

double perf::median(llvm::MutableArrayRef<double> values) {
  assert(!values.empty() && "median of no values");
  size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  if (values.size() % 2)
    return values[mid];
  double upper = values[mid];
  double lower = *std::max_element(values.begin(), values.begin() + mid);
  return 0.5 * (lower + upper);
}

double perf::medianLogRatio(llvm::ArrayRef<PricedRow> rows) {
  if (rows.empty())
    return 0;
  std::vector<double> logs;
  logs.reserve(rows.size());
  for (const PricedRow &r : rows)
    logs.push_back(std::log(r.predictedUs / r.row->latencyUs));
  return median(logs);
}

ErrorStats perf::computeDebiasedErrorStats(llvm::ArrayRef<PricedRow> rows) {
  return scaledErrorStats(rows, std::exp(-medianLogRatio(rows)));
}
