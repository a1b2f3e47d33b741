//===- TileModel.cpp - NeuSight tile/wave model ---------------------------===//
//
// Formulas of NeuSight (seed 001), "Kernel-wise Prediction" and the input
// feature table of "ML model to predict utilization".
//
//===----------------------------------------------------------------------===//

#include "perf/CostModel/TileModel.h"
#include "perf/CostModel/MlModel.h"
#include "perf/CostModel/RooflineModel.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include <algorithm>
#include <cmath>

using namespace perf;

std::optional<TileShape> perf::parseTileFromKernelName(llvm::StringRef name) {
  // Scan for <digits>x<digits> preceded by '_' or a letter-free boundary.
  for (size_t i = 0; i < name.size(); ++i) {
    if (!llvm::isDigit(name[i]) || (i > 0 && llvm::isDigit(name[i - 1])))
      continue;
    // Tile numbers follow an underscore ("sgemm_128x64"); this skips
    // "winogradforwarddata4x4" and "s1688gemm".
    if (i == 0 || name[i - 1] != '_')
      continue;
    size_t j = i;
    while (j < name.size() && llvm::isDigit(name[j]))
      ++j;
    if (j >= name.size() || name[j] != 'x')
      continue;
    size_t k = j + 1;
    while (k < name.size() && llvm::isDigit(name[k]))
      ++k;
    if (k == j + 1)
      continue;
    int64_t a = 0, b = 0;
    if (name.substr(i, j - i).getAsInteger(10, a) ||
        name.substr(j + 1, k - j - 1).getAsInteger(10, b))
      continue;
    if (a >= 16 && a <= 512 && b >= 16 && b <= 512)
      return TileShape{a, b};
  }
  return std::nullopt;
}

std::optional<GemmView> perf::gemmView(const KernelDesc &k) {
  GemmView g;
  if (k.kind == KernelKind::Gemm) {
    // cuBLAS is column-major: a row-major C = A * B runs as C^T = B^T A^T,
    // so the library's first tile dimension covers N and the second M.
    g.batch = std::max<int64_t>(k.batch, 1);
    g.first = k.n;
    g.second = k.m;
    g.reduction = k.k;
  } else if (k.kind == KernelKind::Conv2d) {
    // Implicit GEMM: M = N*P*Q output pixels, N = K filters,
    // K = C/g * R * S; groups are independent GEMMs.
    int64_t groups = std::max<int64_t>(k.groups, 1);
    int64_t npq = k.batch * k.outH() * k.outW();
    int64_t crs = (k.c / groups) * k.r * k.s;
    int64_t filters = k.outChannels / groups;
    g.batch = groups;
    switch (k.pass) {
    case KernelPass::BackwardData:
      g.first = k.batch * k.h * k.w;
      g.second = k.c / groups;
      g.reduction = filters * k.r * k.s;
      break;
    case KernelPass::BackwardWeight:
      g.first = filters;
      g.second = crs;
      g.reduction = npq;
      break;
    default:
      g.first = npq;
      g.second = filters;
      g.reduction = crs;
      break;
    }
  } else {
    return std::nullopt;
  }
  if (g.first <= 0 || g.second <= 0 || g.reduction <= 0)
    return std::nullopt;
  return g;
}

static double ceilDiv(double a, double b) { return std::ceil(a / b); }

TileShape perf::chooseTile(const GemmView &g, const GpuSpec &gpu) {
  static const TileShape candidates[] = {{128, 128}, {128, 64}, {64, 128},
                                         {128, 32},  {32, 128}, {64, 64},
                                         {64, 32},   {32, 64},  {32, 32}};
  for (const TileShape &t : candidates) {
    double tiles =
        g.batch * ceilDiv(g.first, t.first) * ceilDiv(g.second, t.second);
    if (tiles >= gpu.numSMs)
      return t;
  }
  return {32, 32};
}

llvm::ArrayRef<const char *> perf::tileFeatureNames() {
  static const char *names[kTileFeatureCount] = {
      "bias",
      "log(flops_tile / peak_per_sm) [us]",
      "log(bytes_tile / bw_per_sm) [us]",
      "log(waves * bytes_tile / l2_per_sm)",
      "log(waves * bytes_tile / mem_per_sm)",
      "log(tile_ai / ridge_ai)",
      "log(waves)",
      "log(tile elements)",
      "log(reduction)",
      "log(tiles / num_sm)"};
  return names;
}

std::optional<TileAnalysis> perf::analyzeTiles(const KernelDesc &k,
                                               const GpuSpec &gpu) {
  std::optional<GemmView> g = gemmView(k);
  if (!g || gpu.numSMs == 0 || gpu.memBandwidth <= 0)
    return std::nullopt;
  double peak = rooflineRates(k, gpu).first;
  if (peak <= 0)
    return std::nullopt;
  TileAnalysis a;
  std::optional<TileShape> named = parseTileFromKernelName(k.name);
  a.tile = named ? *named : chooseTile(*g, gpu);
  double tilesFirst = ceilDiv(g->first, a.tile.first);
  double tilesSecond = ceilDiv(g->second, a.tile.second);
  a.tiles = g->batch * tilesFirst * tilesSecond;
  double red = g->reduction;
  // Split-K: when the output tiles cannot fill the SMs and the reduction is
  // the long side, cuBLAS splits it over gridDim.z (the NeuSight data shows
  // it on half the T4/V100 linear rows), up to one tile per SM and at
  // least 256 multiply-adds per split.
  if (a.tiles < gpu.numSMs && red >= 512 &&
      red >= std::max<double>(g->first, g->second)) {
    a.splitK = std::max(
        1.0, std::min(std::floor(gpu.numSMs / a.tiles), std::ceil(red / 256)));
    red = std::ceil(red / a.splitK);
    a.tiles *= a.splitK;
  }
  a.waves = ceilDiv(a.tiles, gpu.numSMs);
  // A tile larger than the problem computes only the valid part.
  double tf = std::min<double>(a.tile.first, g->first);
  double ts = std::min<double>(a.tile.second, g->second);
  double e = dtypeBytes(k.dtype);
  a.flopsPerTile = 2.0 * tf * ts * red;
  a.bytesPerTile = e * (tf * red + ts * red + tf * ts);
  double sms = gpu.numSMs;
  double peakPerSM = peak / sms;
  double bwPerSM = gpu.memBandwidth / sms;
  double tileAI = a.flopsPerTile / a.bytesPerTile;
  a.rooflinePerSM = std::min(tileAI * bwPerSM, peakPerSM);

  double l2PerSM = std::max(gpu.l2Bytes, 1.0) / sms;
  double memPerSM = std::max(gpu.memBytes, 1e9) / sms;
  double ridge = peak / gpu.memBandwidth;
  auto lg = [](double x) { return std::log(std::max(x, 1e-30)); };
  // The L2 and memory-size features are clamped: a linear f extrapolates
  // them badly to the A100's 40 MB L2, ten times the other GPUs' (held-out
  // A100 GEMM GMAE 80% unclamped, 20% clamped; docs/accuracy.md).
  auto clampedLg = [&](double x) { return std::clamp(lg(x), -2.0, 2.0); };
  a.features = {1.0,
                lg(a.flopsPerTile / peakPerSM * 1e6),
                lg(a.bytesPerTile / bwPerSM * 1e6),
                clampedLg(a.waves * a.bytesPerTile / l2PerSM),
                clampedLg(a.waves * a.bytesPerTile / memPerSM),
                lg(tileAI / ridge),
                lg(a.waves),
                lg(tf * ts),
                lg(red),
                lg(a.tiles / sms)};
  return a;
}

static double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

static double dot(const std::array<double, kTileFeatureCount> &w,
                  const std::array<double, kTileFeatureCount> &f) {
  double s = 0;
  for (unsigned i = 0; i < kTileFeatureCount; ++i)
    s += w[i] * f[i];
  return s;
}

double perf::tileUtilization(const TileAnalysis &a, const TileParams &p) {
  double alpha = sigmoid(dot(p.alpha, a.features));
  double betaFraction = sigmoid(dot(p.beta, a.features));
  // beta = alpha * betaFraction keeps alpha - beta / waves in (0, alpha].
  return alpha * (1.0 - betaFraction / std::max(a.waves, 1.0));
}

double perf::tileLatencyUs(const TileAnalysis &a, const TileParams &p) {
  double util = tileUtilization(a, p);
  double perTileS = a.flopsPerTile / (a.rooflinePerSM * util);
  return p.overheadUs + a.waves * perTileS * 1e6;
}

llvm::StringRef perf::tileFamily(const KernelDesc &k) {
  if (k.kind == KernelKind::Gemm)
    return "gemm";
  if (k.kind == KernelKind::Conv2d)
    return "conv2d";
  return "";
}

TileParams perf::fitTileParams(llvm::ArrayRef<TileSample> samples,
                               unsigned iterations) {
  TileParams p;
  // Start from utilization ~0.5 and a 5 us overhead.
  p.overheadUs = 5;
  if (samples.empty())
    return p;
  constexpr unsigned F = kTileFeatureCount;
  constexpr unsigned P = 2 * F + 1;
  std::array<double, P> theta{}, m{}, v{};
  theta[2 * F] = std::log(p.overheadUs);
  const double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double n = samples.size();
  for (unsigned it = 1; it <= iterations; ++it) {
    std::array<double, P> grad{};
    double overhead = std::exp(theta[2 * F]);
    for (const TileSample &s : samples) {
      const auto &f = s.analysis.features;
      double za = 0, zb = 0;
      for (unsigned i = 0; i < F; ++i) {
        za += theta[i] * f[i];
        zb += theta[F + i] * f[i];
      }
      double alpha = sigmoid(za), bf = sigmoid(zb);
      double w = std::max(s.analysis.waves, 1.0);
      double util = alpha * (1.0 - bf / w);
      double core = s.analysis.waves * s.analysis.flopsPerTile /
                    (s.analysis.rooflinePerSM * util) * 1e6;
      double pred = overhead + core;
      double r = std::log(pred) - std::log(s.measuredUs);
      double q = core / pred;
      // d log(pred) / d z_alpha = -q * (1 - alpha);
      // d log(pred) / d z_beta = q * (bf (1 - bf) / w) / (1 - bf / w).
      double ga = -q * (1.0 - alpha);
      double gb = q * (bf * (1.0 - bf) / w) / (1.0 - bf / w);
      for (unsigned i = 0; i < F; ++i) {
        grad[i] += 2 * r * ga * f[i];
        grad[F + i] += 2 * r * gb * f[i];
      }
      grad[2 * F] += 2 * r * overhead / pred;
    }
    double lr = 0.05 * (1.0 - 0.9 * double(it) / iterations);
    for (unsigned i = 0; i < P; ++i) {
      double g = grad[i] / n;
      m[i] = beta1 * m[i] + (1 - beta1) * g;
      v[i] = beta2 * v[i] + (1 - beta2) * g * g;
      double mh = m[i] / (1 - std::pow(beta1, it));
      double vh = v[i] / (1 - std::pow(beta2, it));
      theta[i] -= lr * mh / (std::sqrt(vh) + eps);
    }
  }
  for (unsigned i = 0; i < F; ++i) {
    p.alpha[i] = theta[i];
    p.beta[i] = theta[F + i];
  }
  p.overheadUs = std::exp(theta[2 * F]);
  p.trainedRows = samples.size();
  return p;
}

llvm::json::Value perf::tileParamsToJson(const TileParamsSet &set) {
  llvm::json::Object root;
  root["version"] = 1;
  llvm::json::Array names;
  for (const char *n : tileFeatureNames())
    names.push_back(n);
  root["features"] = std::move(names);
  for (const auto &[family, p] : set) {
    llvm::json::Object o;
    o["alpha"] = llvm::json::Array(p.alpha);
    o["beta"] = llvm::json::Array(p.beta);
    o["overhead_us"] = p.overheadUs;
    o["trained_rows"] = p.trainedRows;
    o["coverage"] = llvm::json::Array(p.coverage);
    root[family] = std::move(o);
  }
  return root;
}

llvm::Expected<TileParamsSet>
perf::tileParamsFromJson(const llvm::json::Value &v) {
  const llvm::json::Object *root = v.getAsObject();
  if (!root)
    return llvm::createStringError("tile params: expected a JSON object");
  TileParamsSet set;
  for (const auto &[key, value] : *root) {
    if (key == "version" || key == "features")
      continue;
    const llvm::json::Object *o = value.getAsObject();
    if (!o)
      return llvm::createStringError("tile params: '" + key.str() +
                                     "' must be an object");
    TileParams p;
    auto readArray =
        [&](llvm::StringRef name,
            std::array<double, kTileFeatureCount> &out) -> llvm::Error {
      const llvm::json::Array *a = o->getArray(name);
      if (!a || a->size() != kTileFeatureCount)
        return llvm::createStringError(
            "tile params: '" + key.str() + "." + name.str() + "' must be " +
            std::to_string(kTileFeatureCount) + " numbers");
      for (unsigned i = 0; i < kTileFeatureCount; ++i) {
        std::optional<double> d = (*a)[i].getAsNumber();
        if (!d || !std::isfinite(*d))
          return llvm::createStringError("tile params: '" + key.str() + "." +
                                         name.str() +
                                         "' must be finite numbers");
        out[i] = *d;
      }
      return llvm::Error::success();
    };
    if (auto e = readArray("alpha", p.alpha))
      return std::move(e);
    if (auto e = readArray("beta", p.beta))
      return std::move(e);
    p.overheadUs = o->getNumber("overhead_us").value_or(0);
    if (!isFiniteAtLeast(p.overheadUs, 0))
      return llvm::createStringError(
          "tile params: '" + key.str() +
          ".overhead_us' must be a finite non-negative number");
    p.trainedRows = o->getInteger("trained_rows").value_or(0);
    // Files written before coverage was recorded were fitted on the FP32
    // NeuSight rows, the default.
    if (const llvm::json::Array *types = o->getArray("coverage")) {
      p.coverage.clear();
      for (const llvm::json::Value &t : *types) {
        std::optional<llvm::StringRef> name = t.getAsString();
        if (!name)
          return llvm::createStringError("tile params: '" + key.str() +
                                         ".coverage' must be type strings");
        p.coverage.push_back(name->str());
      }
    }
    set[key.str()] = p;
  }
  return set;
}

llvm::Expected<TileParamsSet> perf::loadTileParams(llvm::StringRef path) {
  llvm::Expected<llvm::json::Value> json = readJsonFile(path);
  if (!json)
    return json.takeError();
  auto set = tileParamsFromJson(*json);
  if (!set)
    return fileError(path, llvm::toString(set.takeError()));
  return set;
}

std::optional<KernelCost> TileModel::estimate(const KernelDesc &k,
                                              const GpuSpec &gpu) const {
  llvm::StringRef family = tileFamily(k);
  if (family.empty())
    return std::nullopt;
  auto it = params.find(family.str());
  if (it == params.end() ||
      !llvm::is_contained(it->second.coverage, numberTypeKey(k)))
    return std::nullopt;
  std::optional<TileAnalysis> a = analyzeTiles(k, gpu);
  if (!a)
    return std::nullopt;
  KernelCost cost;
  cost.model = "tile";
  cost.latencyUs = tileLatencyUs(*a, it->second);
  double peakPerSM = rooflineRates(k, gpu).first / gpu.numSMs;
  cost.computeBound = a->rooflinePerSM >= peakPerSM;
  return cost;
}
