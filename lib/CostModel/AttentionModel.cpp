//===- AttentionModel.cpp - Fused attention as FlashAttention runs --------===//

#include "perf/CostModel/AttentionModel.h"
#include "perf/CostModel/KernelMeasurements.h"
#include "perf/CostModel/ParameterFit.h"
#include "perf/Support/DType.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Limits.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>
#include <set>

using namespace perf;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Whether FlashAttention-style kernels run `dtype` (on tensor cores).
static bool fusedAttentionType(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F8;
}

std::optional<AttentionTiling> perf::tileAttention(const KernelDesc &k,
                                                   const GpuSpec &gpu) {
  if (k.kind != KernelKind::Attention || k.m <= 0 || k.k <= 0 || k.batch <= 0 ||
      k.heads <= 0 || gpu.numSMs == 0 || k.heads % k.keyHeads() != 0)
    return std::nullopt;
  AttentionTiling t;
  int64_t keys = k.keyLength();
  int64_t groups = k.heads / k.keyHeads();
  // Few queries (decoding, a short chunk): the query heads of a key head
  // fill one block together (FlashAttention-3's PackGQA, FA2's swap of the
  // query heads into the sequence).
  bool packed = groups > 1 && k.m < 64;
  int64_t perRow = packed ? groups : 1;
  t.rows = k.m * perRow;
  t.heads = packed ? k.keyHeads() : k.heads;
  // FlashAttention's blocks on Hopper: 192 x 128 at d = 64, 128 x 128 up to
  // d = 128, narrower key blocks above; 64-row blocks for decoding.
  t.blockM = t.rows <= 64 ? 64 : (k.k <= 64 ? 192 : 128);
  t.blockN = k.k <= 128 ? 128 : 64;
  t.queryBlocks = ceilDiv(t.rows, t.blockM);
  t.keyBlocks.reserve(t.queryBlocks);
  int64_t maxKeyBlocks = 0;
  for (int64_t i = 0; i < t.queryBlocks; ++i) {
    int64_t firstQuery = i * t.blockM / perRow;
    int64_t lastQuery = (std::min(t.rows, (i + 1) * t.blockM) - 1) / perRow;
    // Query q is the (keys - m + q)-th key's position (aligned to the end).
    int64_t end = k.causal ? std::min(keys, keys - k.m + lastQuery + 1) : keys;
    int64_t begin = 0;
    if (k.window > 0)
      begin = std::max<int64_t>(0, (k.causal ? keys - k.m + firstQuery : end) -
                                       k.window + 1);
    end = std::max(end, begin + 1);
    int64_t blocks = ceilDiv(end, t.blockN) - begin / t.blockN;
    t.keyBlocks.push_back(std::max<int64_t>(blocks, 1));
    maxKeyBlocks = std::max(maxKeyBlocks, t.keyBlocks.back());
  }
  t.scoresPerBlock = double(std::min(t.rows, t.blockM)) * t.blockN;
  // Too few CTAs to fill the SMs: the keys are split among more of them
  // (flash-decoding), forward only, as FlashAttention's heuristic does.
  double ctas = double(k.batch) * t.heads * t.queryBlocks;
  if (k.pass == KernelPass::Forward && ctas < 0.8 * gpu.numSMs &&
      maxKeyBlocks >= 2)
    t.splits = std::min<int64_t>(
        {int64_t(std::ceil(gpu.numSMs / ctas)), maxKeyBlocks, 128});
  return t;
}

double perf::attentionTimeUs(const KernelDesc &k, const GpuSpec &gpu,
                             const AttentionParams &p) {
  if (!fusedAttentionType(k.dtype))
    return 0;
  std::optional<AttentionTiling> t = tileAttention(k, gpu);
  double peak = gpu.peakFlops(k.dtype, /*tensorCores=*/true);
  if (!t || !(peak > 0) || !(gpu.clockMHz > 0) || !(gpu.memBandwidth > 0))
    return 0;
  double sms = gpu.numSMs;
  double blockS =
      4.0 * t->blockM * t->blockN * k.k / (peak / sms * p.mmaEfficiency) +
      t->scoresPerBlock * p.softmaxCyclesPerScore / (gpu.clockMHz * 1e6);
  if (k.pass != KernelPass::Forward)
    blockS *= 2.5 / p.backwardEfficiency;
  double fixedS = p.blockOverheadUs * 1e-6;
  double headsTotal = double(k.batch) * t->heads * t->splits;
  double total = 0, longest = 0;
  for (int64_t blocks : t->keyBlocks) {
    double cta = fixedS + double(ceilDiv(blocks, t->splits)) * blockS;
    total += cta * headsTotal;
    longest = std::max(longest, cta);
  }
  double computeS = std::max(total / sms, longest);
  double memoryS = k.totalBytes() / (gpu.memBandwidth * p.memoryEfficiency);
  double us = p.overheadUs + std::max(computeS, memoryS) * 1e6;
  if (t->splits > 1)
    us += p.combineUs;
  return us;
}

std::optional<KernelCost> AttentionModel::estimate(const KernelDesc &kernel,
                                                   const GpuSpec &gpu) const {
  if (kernel.kind != KernelKind::Attention || kernel.hasWorkOverride())
    return std::nullopt;
  double us = attentionTimeUs(kernel, gpu, params);
  if (!(us > 0))
    return std::nullopt;
  KernelCost cost;
  cost.latencyUs = us;
  cost.model = "flash";
  double peak = gpu.peakFlops(kernel.dtype, true);
  cost.computeBound =
      kernel.totalFlops() / peak > kernel.totalBytes() / gpu.memBandwidth;
  return cost;
}

double perf::attentionCallUs(const AttentionMeasurement &call,
                             const GpuSpec &gpu, const AttentionParams &p) {
  double us = attentionTimeUs(call.forward, gpu, p);
  if (call.withBackward) {
    KernelDesc backward = call.forward;
    backward.pass = KernelPass::BackwardData;
    us += attentionTimeUs(backward, gpu, p);
  }
  return us;
}

llvm::Expected<std::vector<AttentionMeasurement>>
perf::readAttentionCsv(llvm::StringRef path) {
  auto text = readInputFile(path);
  if (!text)
    return text.takeError();
  llvm::SmallVector<llvm::StringRef> lines;
  (*text)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  if (lines.empty())
    return fileError(path, 1, 0,
                     "empty file; expected the header of "
                     "attention_sweep.py");
  std::vector<std::string> header = splitCsvRecord(lines[0].rtrim("\r"));
  auto column = [&](llvm::StringRef name) -> int {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name)
        return int(i);
    return -1;
  };
  const char *required[] = {"device", "dtype", "pass",   "b",         "h",
                            "s",      "d",     "causal", "latency_us"};
  std::map<std::string, int> at;
  for (const char *name : required) {
    at[name] = column(name);
    if (at[name] < 0)
      return fileError(path, 1, 0,
                       llvm::formatv("missing column '{0}'", name).str());
  }
  std::vector<AttentionMeasurement> out;
  for (size_t n = 1; n < lines.size(); ++n) {
    unsigned line = unsigned(n + 1);
    std::vector<std::string> f = splitCsvRecord(lines[n].rtrim("\r"));
    if (f.size() < header.size())
      return fileError(path, line, 0,
                       llvm::formatv("{0} fields, the header has {1}", f.size(),
                                     header.size())
                           .str());
    AttentionMeasurement m;
    m.file = path.str();
    m.line = line;
    m.device = f[at["device"]];
    std::optional<DType> dtype = parseDType(f[at["dtype"]]);
    if (!dtype)
      return fileError(path, line, 0, "unknown dtype '" + f[at["dtype"]] + "'");
    llvm::StringRef pass = f[at["pass"]];
    if (pass != "fwd" && pass != "fwd+bwd")
      return fileError(path, line, 0,
                       "'pass' must be fwd or fwd+bwd, got '" + pass + "'");
    m.withBackward = pass == "fwd+bwd";
    KernelDesc &k = m.forward;
    k.kind = KernelKind::Attention;
    k.dtype = *dtype;
    k.tensorCores = true;
    int64_t causal = 0;
    auto integer = [&](const char *name, int64_t &into, int64_t lo) {
      return !llvm::StringRef(f[at[name]]).getAsInteger(10, into) &&
             into >= lo && withinLimit(into, kMaxExtent);
    };
    if (!integer("b", k.batch, 1) || !integer("h", k.heads, 1) ||
        !integer("s", k.m, 1) || !integer("d", k.k, 1) ||
        !integer("causal", causal, 0) || causal > 1)
      return fileError(path, line, 0,
                       "b, h, s and d must be positive integers at most "
                       "max-extent and causal 0 or 1");
    k.causal = causal == 1;
    if (llvm::StringRef(f[at["latency_us"]]).getAsDouble(m.latencyUs) ||
        !(m.latencyUs > 0) || !std::isfinite(m.latencyUs))
      return fileError(path, line, 0, "'latency_us' must be a positive number");
    out.push_back(std::move(m));
  }
  return out;
}

AttentionParams perf::fitAttention(
    llvm::ArrayRef<AttentionMeasurement> calls,
    llvm::function_ref<const GpuSpec *(llvm::StringRef)> deviceOf,
    const AttentionParams &start) {
  std::vector<std::pair<const AttentionMeasurement *, const GpuSpec *>> used;
  std::set<std::string> devices;
  std::vector<double> measured;
  for (const AttentionMeasurement &call : calls)
    if (const GpuSpec *gpu = deviceOf(call.device)) {
      used.push_back({&call, gpu});
      measured.push_back(call.latencyUs);
      devices.insert(gpu->name);
    }
  AttentionParams out = start;
  if (used.empty())
    return out;
  auto paramsOf = [&](llvm::ArrayRef<double> x) {
    AttentionParams p = start;
    p.mmaEfficiency = x[0];
    p.softmaxCyclesPerScore = x[1];
    p.blockOverheadUs = x[2];
    p.backwardEfficiency = x[3];
    return p;
  };
  std::vector<double> predicted(used.size());
  std::vector<double> best = minimizeWithin(
      {{start.mmaEfficiency, 0.2, 1.0},
       {start.softmaxCyclesPerScore, 0.0, 1.0},
       {start.blockOverheadUs, 0.0, 20.0},
       {start.backwardEfficiency, 0.2, 1.5}},
      [&](llvm::ArrayRef<double> x) {
        AttentionParams p = paramsOf(x);
        for (size_t i = 0; i < used.size(); ++i)
          predicted[i] = attentionCallUs(*used[i].first, *used[i].second, p);
        return meanSquaredLogError(predicted, measured);
      },
      4000);
  out = paramsOf(best);
  out.rows = int64_t(used.size());
  out.devices.assign(devices.begin(), devices.end());
  return out;
}

llvm::json::Value AttentionParams::toJson() const {
  llvm::json::Array gpus;
  for (const std::string &d : devices)
    gpus.push_back(d);
  return llvm::json::Object{{"version", kVersion},
                            {"overhead_us", overheadUs},
                            {"mma_efficiency", mmaEfficiency},
                            {"softmax_cycles_per_score", softmaxCyclesPerScore},
                            {"block_overhead_us", blockOverheadUs},
                            {"backward_efficiency", backwardEfficiency},
                            {"memory_efficiency", memoryEfficiency},
                            {"combine_us", combineUs},
                            {"rows", rows},
                            {"devices", std::move(gpus)}};
}

llvm::Expected<AttentionParams> AttentionParams::load(llvm::StringRef path) {
  auto value = readVersionedJsonFile(path, "attention fit", kVersion,
                                     "rerun perf-train");
  if (!value)
    return value.takeError();
  const llvm::json::Object *root = value->getAsObject();
  AttentionParams p;
  struct Field {
    const char *key;
    double *into;
    double lo, hi;
  } fields[] = {{"overhead_us", &p.overheadUs, 0, 1e6},
                {"mma_efficiency", &p.mmaEfficiency, 1e-6, 1},
                {"softmax_cycles_per_score", &p.softmaxCyclesPerScore, 0, 1e3},
                {"block_overhead_us", &p.blockOverheadUs, 0, 1e6},
                {"backward_efficiency", &p.backwardEfficiency, 1e-6, 10},
                {"memory_efficiency", &p.memoryEfficiency, 1e-6, 1},
                {"combine_us", &p.combineUs, 0, 1e6}};
  for (const Field &f : fields) {
    std::optional<double> v = root->getNumber(f.key);
    if (!v || !(*v >= f.lo && *v <= f.hi))
      return llvm::createStringError(
          llvm::formatv("{0}: '{1}' must be a number in [{2}, {3}]", path,
                        f.key, f.lo, f.hi)
              .str());
    *f.into = *v;
  }
  if (std::optional<int64_t> n = root->getInteger("rows"))
    p.rows = *n;
  if (const llvm::json::Array *gpus = root->getArray("devices"))
    for (const llvm::json::Value &g : *gpus)
      if (std::optional<llvm::StringRef> s = g.getAsString())
        p.devices.push_back(s->str());
  return p;
}
