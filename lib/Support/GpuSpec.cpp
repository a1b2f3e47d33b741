//===- GpuSpec.cpp - Built-in GPU catalog and device JSON -----------------===//
//
// Figures are dense (no sparsity) peaks from NVIDIA's public datasheets and
// architecture whitepapers, named in each entry's `source`. L2 bandwidth is
// not on datasheets: it is taken from published microbenchmark studies (Jia
// et al., "Dissecting the NVIDIA Volta/Turing GPU Architecture via
// Microbenchmarking"; Chips and Cheese Ampere/Hopper measurements) and is
// approximate.
//
//===----------------------------------------------------------------------===//

#include "perf/Support/GpuSpec.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Limits.h"
#include "llvm/ADT/STLExtras.h"
#include <cctype>

using namespace perf;
using llvm::json::Object;

static constexpr double T = 1e12; // tera
static constexpr double G = 1e9;  // giga
static constexpr double GiB = 1024.0 * 1024 * 1024;
static constexpr double MiB = 1024.0 * 1024;

namespace {
struct CatalogEntry {
  GpuSpec spec;
  std::vector<const char *> aliases;
};
} // namespace

static GpuSpec make(const char *name, const char *source, unsigned sms,
                    unsigned cores, double mhz, double fp64, double fp32,
                    double fp16, double tf32Tc, double f16Tc, double bf16Tc,
                    double f8Tc, double i8Tc, double memBw, double memGiB,
                    double l2Bw, double l2MiB, double smemKiB, double pcie,
                    double nvlink) {
  GpuSpec s;
  s.name = name;
  s.source = source;
  s.numSMs = sms;
  s.coresPerSM = cores;
  s.clockMHz = mhz;
  s.fp64Flops = fp64 * T;
  s.fp32Flops = fp32 * T;
  s.fp16Flops = fp16 * T;
  s.tensorTf32Flops = tf32Tc * T;
  s.tensorF16Flops = f16Tc * T;
  s.tensorBf16Flops = bf16Tc * T;
  s.tensorF8Flops = f8Tc * T;
  s.tensorI8Ops = i8Tc * T;
  s.memBandwidth = memBw * G;
  s.memBytes = memGiB * GiB;
  s.l2Bandwidth = l2Bw * G;
  s.l2Bytes = l2MiB * MiB;
  s.sharedMemPerSM = smemKiB * 1024;
  s.pcieBandwidth = pcie * G;
  s.nvlinkBandwidth = nvlink * G;
  return s;
}

// Memory is what the driver gives CUDA (NVML's total, nvidia-smi's MiB)
// where it is known to differ from the datasheet's marketing figure: H100
// 80 GB (SXM and PCIe) 81559 MiB, H100 NVL 95830 MiB, H200 143771 MiB, B200
// 183359 MiB, H20 97871 MiB, A10 and A10G 23028 MiB, L4 23034 MiB, L40S
// 46068 MiB, T4 15360 MiB, RTX 2080 Ti 11264 MiB (Modal, "Why does an
// NVIDIA H100 80GB card offer 85.52 GB?",
// thundergolfer.com/blog/nvidia-gpu-memory-capacity, and nvidia-smi logs
// in public repositories); the A100s report exactly 40 and 80 GiB. Whether
// a step fits is checked against it.
static const std::vector<CatalogEntry> &catalog() {
  static const std::vector<CatalogEntry> entries = {
      {make("P100-PCIe-16GB", "NVIDIA Tesla P100 PCIe datasheet (2016)", 56, 64,
            1303, 4.7, 9.3, 18.7, 0, 0, 0, 0, 0, 732, 16, 1600, 4, 64, 16, 0),
       {"p100", "tesla p100-pcie-16gb", "tesla p100"}},
      {make("P4", "NVIDIA Tesla P4 datasheet (2016)", 20, 128, 1114, 0.17, 5.5,
            0.09, 0, 0, 0, 0, 22, 192, 8, 700, 2, 96, 16, 0),
       {"tesla p4"}},
      {make("V100-SXM2-32GB", "NVIDIA Tesla V100 datasheet (2018), SXM2", 80,
            64, 1530, 7.8, 15.7, 31.4, 0, 125, 0, 0, 62, 900, 32, 2155, 6, 96,
            16, 150),
       {"v100", "v100-sxm2", "tesla v100-sxm2-32gb", "tesla v100-sxm2-16gb",
        "v100-sxm2-16gb"}},
      {make("V100-PCIe-32GB", "NVIDIA Tesla V100 datasheet (2018), PCIe", 80,
            64, 1380, 7, 14, 28, 0, 112, 0, 0, 56, 900, 32, 2155, 6, 96, 16, 0),
       {"v100-pcie", "tesla v100-pcie-32gb", "tesla v100-pcie-16gb"}},
      {make("T4", "NVIDIA T4 datasheet (2019)", 40, 64, 1590, 0.25, 8.1, 16.2,
            0, 65, 0, 0, 130, 320, 15, 1100, 4, 64, 16, 0),
       {"tesla t4"}},
      {make("A100-SXM4-40GB", "NVIDIA A100 datasheet (2021), SXM4 40GB", 108,
            64, 1410, 9.7, 19.5, 78, 156, 312, 312, 0, 624, 1555, 40, 4800, 40,
            164, 32, 300),
       {"a100", "a100-40gb", "nvidia a100-sxm4-40gb"}},
      {make("A100-PCIe-40GB", "NVIDIA A100 datasheet (2021), PCIe 40GB", 108,
            64, 1410, 9.7, 19.5, 78, 156, 312, 312, 0, 624, 1555, 40, 4800, 40,
            164, 32, 0),
       {"a100-pcie", "nvidia a100-pcie-40gb"}},
      {make("A100-SXM4-80GB", "NVIDIA A100 datasheet (2021), SXM4 80GB", 108,
            64, 1410, 9.7, 19.5, 78, 156, 312, 312, 0, 624, 2039, 80, 4800, 40,
            164, 32, 300),
       {"a100-80gb", "nvidia a100-sxm4-80gb", "a100-sxm-80gb"}},
      {make("A100-PCIe-80GB", "NVIDIA A100 datasheet (2021), PCIe 80GB", 108,
            64, 1410, 9.7, 19.5, 78, 156, 312, 312, 0, 624, 1935, 80, 4800, 40,
            164, 32, 0),
       {"nvidia a100 80gb pcie", "a100-80gb-pcie"}},
      {make("A10", "NVIDIA A10 datasheet (2021)", 72, 128, 1695, 0.98, 31.2,
            31.2, 62.5, 125, 125, 0, 250, 600, 22.49, 2000, 6, 100, 32, 0),
       {"nvidia a10"}},
      // The AWS part (EC2 G5): the GA102 of the A10 with 80 SMs and half its
      // tensor rate. FP32 35 and FP16/BF16 tensor 70 (dense) are the
      // datasheet's; 80 SMs x 128 lanes x 2 x 1710 MHz is that FP32, and
      // TF32 half the FP16 rate and INT8 twice it as on every Ampere part.
      {make("A10G", "NVIDIA A10G datasheet for AWS (2022), EC2 G5", 80, 128,
            1710, 0.55, 35, 35, 35, 70, 70, 0, 140, 600, 22.49, 2000, 6, 100,
            32, 0),
       {"nvidia a10g", "aws a10g"}},
      {make("A40", "NVIDIA A40 datasheet (2021)", 84, 128, 1740, 0.58, 37.4,
            37.4, 74.8, 149.7, 149.7, 0, 299.3, 696, 48, 2300, 6, 100, 32,
            56.25),
       {"nvidia a40"}},
      {make("L4", "NVIDIA L4 datasheet (2023)", 58, 128, 2040, 0.49, 30.3, 30.3,
            60, 121, 121, 242, 242, 300, 22.49, 2500, 48, 100, 32, 0),
       {"nvidia l4"}},
      {make("H100-SXM5-80GB", "NVIDIA H100 datasheet (2023), SXM5", 132, 128,
            1980, 34, 67, 134, 494.7, 989.4, 989.4, 1978.9, 1978.9, 3350, 79.65,
            7000, 50, 228, 64, 450),
       {"h100", "h100-sxm", "h100-sxm5", "nvidia h100 80gb hbm3"}},
      {make("H100-PCIe-80GB", "NVIDIA H100 datasheet (2023), PCIe", 114, 128,
            1755, 26, 51, 102, 378, 756, 756, 1513, 1513, 2000, 79.65, 5500, 50,
            228, 64, 0),
       {"h100-pcie", "nvidia h100 pcie"}},
      {make("H200-SXM-141GB", "NVIDIA H200 datasheet (2024), SXM", 132, 128,
            1980, 34, 67, 134, 494.7, 989.4, 989.4, 1978.9, 1978.9, 4800,
            140.40, 7000, 50, 228, 64, 450),
       {"h200", "h200-sxm", "nvidia h200"}},
      // Datasheet tensor figures with sparsity (marked *) halved; NVLink
      // bridge 600 GB/s both ways.
      {make("H100-NVL-94GB", "NVIDIA H100 datasheet (2024), H100 NVL", 132, 128,
            1785, 30, 60, 120, 417.5, 835.5, 835.5, 1670.5, 1670.5, 3900, 93.58,
            5500, 50, 228, 64, 300),
       {"h100-nvl", "h100 nvl", "nvidia h100 nvl"}},
      // The export Hopper: NVIDIA's partner specification (no nvidia.com
      // datasheet) gives TF32 74, FP16/BF16 148, FP8 and INT8 296 (dense),
      // 4.0 TB/s, 60 MB of L2 and NVLink 900 GB/s both ways; the driver
      // reports 78 SMs. Its FP32 44 TFLOP/s would need 2.2 GHz on 78 SMs,
      // above Hopper's clocks: the entry takes the H100's 1980 MHz and the
      // FP32 that makes (39.5). L2 bandwidth: the H100's per SM.
      {make("H20-96GB", "NVIDIA H20 product specification (2023), SXM", 78, 128,
            1980, 1, 39.5, 79, 74, 148, 148, 296, 296, 4000, 95.58, 4140, 60,
            228, 64, 450),
       {"h20", "nvidia h20", "h20-96gb"}},
      // GeForce tensor figures are those with FP32 accumulate (what the
      // frameworks use; FP16 accumulate runs twice as fast). L2 bandwidth of
      // the consumer and Blackwell parts: 3x memory bandwidth (approximate,
      // no datasheet figure).
      {make("RTX-2080-Ti",
            "NVIDIA Turing GPU architecture whitepaper (2018), GeForce RTX "
            "2080 Ti",
            68, 64, 1545, 0.42, 13.4, 26.9, 0, 53.8, 0, 0, 215.2, 616, 11, 1848,
            5.5, 64, 16, 50),
       {"rtx 2080 ti", "nvidia geforce rtx 2080 ti", "geforce rtx 2080 ti"}},
      {make("RTX-3090",
            "NVIDIA Ampere GA102 GPU architecture whitepaper (2020), GeForce "
            "RTX 3090",
            82, 128, 1695, 0.556, 35.6, 35.6, 35.6, 71, 71, 0, 284, 936, 24,
            2808, 6, 100, 32, 56.25),
       {"rtx 3090", "nvidia geforce rtx 3090", "geforce rtx 3090"}},
      {make("RTX-4090",
            "NVIDIA Ada GPU architecture whitepaper (2022), GeForce RTX 4090",
            128, 128, 2520, 1.29, 82.6, 82.6, 82.6, 165.2, 165.2, 330.3, 660.6,
            1008, 24, 3024, 72, 100, 32, 0),
       {"rtx 4090", "nvidia geforce rtx 4090", "geforce rtx 4090"}},
      {make("RTX-5090",
            "NVIDIA RTX Blackwell GPU architecture whitepaper (2025), GeForce "
            "RTX 5090",
            170, 128, 2407, 1.64, 104.8, 104.8, 104.8, 209.5, 209.5, 419, 838,
            1792, 32, 5376, 96, 100, 64, 0),
       {"rtx 5090", "nvidia geforce rtx 5090", "geforce rtx 5090"}},
      {make("L40S", "NVIDIA L40S datasheet (2023)", 142, 128, 2520, 1.43, 91.6,
            91.6, 183, 362.05, 362.05, 733, 733, 864, 44.99, 2592, 96, 100, 32,
            0),
       {"nvidia l40s"}},
      // Blackwell datasheets give no SM count or clock: 148 SMs (both dies'
      // enabled SMs, Chips and Cheese's B200 measurements, which also give
      // the 126 MB L2) and the clock that makes 2 x 128 lanes x 148 SMs the
      // FP32 peak.
      {make("B200", "NVIDIA HGX B200 datasheet (2024), per GPU at 1000 W", 148,
            128, 2111, 40, 80, 160, 1100, 2250, 2250, 4500, 4500, 8000, 179.06,
            24000, 126, 228, 64, 900),
       {"nvidia b200", "hgx b200", "dgx b200"}},
      // The host link is NVLink-C2C to the Grace CPU (900 GB/s both ways).
      {make("GB200",
            "NVIDIA GB200 NVL72 datasheet (2024), per GPU (1/72 of the rack)",
            148, 128, 2375, 45, 90, 180, 1250, 2500, 2500, 5000, 5000, 8000,
            186, 24000, 126, 228, 450, 900),
       {"nvidia gb200", "gb200 nvl72"}},
      // AMD: CUs as SMs (64 lanes each), matrix-core peaks as tensor peaks,
      // LDS as shared memory; Infinity Fabric links in place of NVLink.
      // MI250X: one of the module's two GCDs, which software sees as one
      // device (half the module's datasheet figures); CDNA2 has no TF32.
      {make("MI250X",
            "AMD Instinct MI250X datasheet (2021), one of the two GCDs", 110,
            64, 1700, 23.95, 23.95, 47.85, 0, 191.5, 191.5, 0, 191.5, 1638.4,
            64, 4915, 8, 64, 32, 0),
       {"amd instinct mi250x", "mi250x gcd"}},
      {make("MI300X", "AMD Instinct MI300X datasheet (2023)", 304, 64, 2100,
            81.7, 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 5300,
            192, 15900, 32, 64, 64, 448),
       {"amd instinct mi300x", "mi300x oam"}},
  };
  return entries;
}

std::vector<llvm::StringRef> perf::gpuCatalogAliases(llvm::StringRef name) {
  std::vector<llvm::StringRef> out;
  for (const CatalogEntry &e : catalog())
    if (e.spec.name == name)
      out.assign(e.aliases.begin(), e.aliases.end());
  return out;
}

llvm::ArrayRef<GpuSpec> perf::gpuCatalog() {
  static const std::vector<GpuSpec> specs = [] {
    std::vector<GpuSpec> out;
    for (const CatalogEntry &e : catalog())
      out.push_back(e.spec);
    return out;
  }();
  return specs;
}

/// Folds case and drops separators so "NVIDIA_A100-SXM4-40GB" and
/// "nvidia a100 sxm4 40gb" compare equal.
static std::string normalize(llvm::StringRef name) {
  std::string out;
  for (char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out.push_back(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const GpuSpec *perf::lookupGpu(llvm::StringRef name) {
  std::string key = normalize(name);
  llvm::ArrayRef<GpuSpec> specs = gpuCatalog();
  for (auto [i, e] : llvm::enumerate(catalog())) {
    if (normalize(e.spec.name) == key)
      return &specs[i];
    for (const char *alias : e.aliases)
      if (normalize(alias) == key)
        return &specs[i];
  }
  return nullptr;
}

llvm::Expected<GpuSpec> perf::lookupGpuOrError(llvm::StringRef name) {
  if (const GpuSpec *known = lookupGpu(name))
    return *known;
  std::string names;
  for (const GpuSpec &g : gpuCatalog())
    names += (names.empty() ? "" : ", ") + g.name;
  return llvm::createStringError("unknown device '" + name + "'; known: " +
                                 names + "; or give --perf-device-file=<json>");
}

double GpuSpec::peakFlops(DType type, bool tensorCores) const {
  double tc = 0, vec = fp32Flops;
  switch (type) {
  case DType::F64:
    vec = fp64Flops;
    break;
  case DType::F32:
    break;
  case DType::TF32:
    tc = tensorTf32Flops;
    break;
  case DType::F16:
    tc = tensorF16Flops;
    vec = fp16Flops > 0 ? fp16Flops : fp32Flops;
    break;
  case DType::BF16:
    tc = tensorBf16Flops;
    vec = fp16Flops > 0 ? fp16Flops : fp32Flops;
    break;
  case DType::F8:
    tc = tensorF8Flops > 0 ? tensorF8Flops : tensorF16Flops;
    vec = fp16Flops > 0 ? fp16Flops : fp32Flops;
    break;
  case DType::I8:
    tc = tensorI8Ops;
    break;
  case DType::I64:
  case DType::I32:
  case DType::Bool:
    break;
  }
  if (tensorCores && tc > 0)
    return tc;
  return vec > 0 ? vec : fp32Flops;
}

namespace {
/// One JSON key of the project's device format and the field it sets, with
/// the unit scale from JSON to the struct.
struct FieldKey {
  const char *key;
  double GpuSpec::*field;
  double scale;
};
} // namespace

static const FieldKey kDoubleFields[] = {
    {"clock_mhz", &GpuSpec::clockMHz, 1},
    {"fp64_tflops", &GpuSpec::fp64Flops, T},
    {"fp32_tflops", &GpuSpec::fp32Flops, T},
    {"fp16_tflops", &GpuSpec::fp16Flops, T},
    {"tc_tf32_tflops", &GpuSpec::tensorTf32Flops, T},
    {"tc_fp16_tflops", &GpuSpec::tensorF16Flops, T},
    {"tc_bf16_tflops", &GpuSpec::tensorBf16Flops, T},
    {"tc_fp8_tflops", &GpuSpec::tensorF8Flops, T},
    {"tc_int8_tops", &GpuSpec::tensorI8Ops, T},
    {"mem_bw_gbs", &GpuSpec::memBandwidth, G},
    {"mem_gib", &GpuSpec::memBytes, GiB},
    {"l2_bw_gbs", &GpuSpec::l2Bandwidth, G},
    {"l2_mib", &GpuSpec::l2Bytes, MiB},
    {"smem_per_sm_kib", &GpuSpec::sharedMemPerSM, 1024},
    {"pcie_gbs", &GpuSpec::pcieBandwidth, G},
    {"nvlink_gbs", &GpuSpec::nvlinkBandwidth, G},
};

llvm::Error GpuSpec::validate() const {
  auto need = [&](double v, const char *what) -> llvm::Error {
    if (v > 0)
      return llvm::Error::success();
    return llvm::createStringError("device '" + name + "': '" + what +
                                   "' must be positive");
  };
  if (numSMs == 0)
    return llvm::createStringError("device '" + name +
                                   "': 'sms' must be positive");
  // A figure set in code (not through the JSON readers) is checked too: a
  // NaN or infinite one would flow into every price as nan or inf.
  if (!isFiniteAtLeast(clockMHz, 0))
    return llvm::createStringError("device '" + name +
                                   "': 'clock_mhz' must be finite and "
                                   "non-negative");
  for (const FieldKey &f : kDoubleFields)
    if (!isFiniteAtLeast(this->*f.field, 0))
      return llvm::createStringError("device '" + name + "': '" + f.key +
                                     "' must be finite and non-negative");
  if (auto e = need(fp32Flops, "fp32_tflops"))
    return e;
  if (auto e = need(memBandwidth, "mem_bw_gbs"))
    return e;
  return llvm::Error::success();
}

std::vector<std::pair<llvm::StringRef, double>>
perf::gpuSpecFields(const GpuSpec &spec) {
  std::vector<std::pair<llvm::StringRef, double>> fields;
  fields.emplace_back("sms", spec.numSMs);
  fields.emplace_back("cores_per_sm", spec.coresPerSM);
  for (const FieldKey &f : kDoubleFields)
    fields.emplace_back(f.key, spec.*f.field / f.scale);
  return fields;
}

llvm::json::Value perf::toJson(const GpuSpec &spec) {
  Object o;
  o["name"] = spec.name;
  if (!spec.source.empty())
    o["source"] = spec.source;
  for (auto [key, value] : gpuSpecFields(spec))
    o[key] = value;
  return o;
}

/// SMs per GPU and cores per SM are counts a GPU has a few hundred of; the
/// bound keeps the conversion to unsigned defined.
static constexpr double kMaxUnitsPerGpu = 1 << 20;

static llvm::Error typeError(llvm::StringRef key, const llvm::Twine &want) {
  return llvm::createStringError("device JSON: key '" + key + "' must be " +
                                 want);
}

/// NeuSight's device files: Num_Sm, Core_Per_SM, Freq (MHz), Mem_Bw (GB/s),
/// SingleFLOPs (GFLOP/s), L2Cache (MB), Dev_Mem (GB).
static llvm::Expected<GpuSpec> parseNeuSight(const Object &o) {
  GpuSpec s;
  if (auto name = o.getString("Device"))
    s.name = name->str();
  if (const GpuSpec *known = lookupGpu(s.name))
    s = *known;
  s.source = "NeuSight device file";
  auto num = [&](const char *key, double &out, double scale) -> llvm::Error {
    const llvm::json::Value *v = o.get(key);
    if (!v)
      return llvm::Error::success();
    std::optional<double> d = v->getAsNumber();
    if (!d || !isFiniteAtLeast(*d * scale, 0))
      return typeError(key, "a finite non-negative number");
    out = *d * scale;
    return llvm::Error::success();
  };
  double sms = s.numSMs, cores = s.coresPerSM;
  if (auto e = num("Num_Sm", sms, 1))
    return std::move(e);
  if (auto e = num("Core_Per_SM", cores, 1))
    return std::move(e);
  if (sms > kMaxUnitsPerGpu || cores > kMaxUnitsPerGpu)
    return typeError(sms > kMaxUnitsPerGpu ? "Num_Sm" : "Core_Per_SM",
                     "at most " + std::to_string(kMaxUnitsPerGpu));
  s.numSMs = static_cast<unsigned>(sms);
  s.coresPerSM = static_cast<unsigned>(cores);
  if (auto e = num("Freq", s.clockMHz, 1))
    return std::move(e);
  if (auto e = num("Mem_Bw", s.memBandwidth, G))
    return std::move(e);
  if (auto e = num("SingleFLOPs", s.fp32Flops, G))
    return std::move(e);
  if (auto e = num("L2Cache", s.l2Bytes, MiB))
    return std::move(e);
  if (auto e = num("Dev_Mem", s.memBytes, GiB))
    return std::move(e);
  if (s.l2Bandwidth <= 0)
    s.l2Bandwidth = 3 * s.memBandwidth;
  if (auto e = s.validate())
    return std::move(e);
  return s;
}

llvm::Expected<GpuSpec> perf::parseGpuSpec(const llvm::json::Value &value) {
  const Object *o = value.getAsObject();
  if (!o)
    return llvm::createStringError("device JSON: expected an object");
  if (o->get("Num_Sm") || o->get("SingleFLOPs"))
    return parseNeuSight(*o);

  GpuSpec s;
  if (const llvm::json::Value *base = o->get("base")) {
    std::optional<llvm::StringRef> baseName = base->getAsString();
    if (!baseName)
      return typeError("base", "a string");
    const GpuSpec *known = lookupGpu(*baseName);
    if (!known)
      return llvm::createStringError("device JSON: unknown base device '" +
                                     *baseName + "'");
    s = *known;
  }
  for (const auto &kv : *o) {
    llvm::StringRef key = kv.first;
    const llvm::json::Value &v = kv.second;
    if (key == "base")
      continue;
    if (key == "name" || key == "source") {
      std::optional<llvm::StringRef> str = v.getAsString();
      if (!str)
        return typeError(key, "a string");
      (key == "name" ? s.name : s.source) = str->str();
      continue;
    }
    std::optional<double> d = v.getAsNumber();
    if (!d || !isFiniteAtLeast(*d, 0))
      return typeError(key, "a finite non-negative number");
    if (key == "sms" || key == "cores_per_sm") {
      if (*d > kMaxUnitsPerGpu)
        return typeError(key, "at most " + std::to_string(kMaxUnitsPerGpu));
      (key == "sms" ? s.numSMs : s.coresPerSM) = static_cast<unsigned>(*d);
      continue;
    }
    const FieldKey *f = llvm::find_if(
        kDoubleFields, [&](const FieldKey &k) { return key == k.key; });
    if (f == std::end(kDoubleFields))
      return llvm::createStringError("device JSON: unknown key '" + key + "'");
    if (!isFiniteAtLeast(*d * f->scale, 0))
      return typeError(key, "a finite number in its unit");
    s.*(f->field) = *d * f->scale;
  }
  if (s.name.empty())
    return llvm::createStringError("device JSON: missing 'name'");
  if (s.l2Bandwidth <= 0)
    s.l2Bandwidth = 3 * s.memBandwidth;
  if (auto e = s.validate())
    return std::move(e);
  return s;
}

llvm::Expected<GpuSpec> perf::parseGpuSpecText(llvm::StringRef text,
                                               llvm::StringRef path) {
  llvm::Expected<llvm::json::Value> json = parseJsonInput(text, path);
  if (!json)
    return json.takeError();
  llvm::Expected<GpuSpec> spec = parseGpuSpec(*json);
  if (!spec)
    return fileError(path, llvm::toString(spec.takeError()));
  return spec;
}

llvm::Expected<GpuSpec> perf::loadGpuSpecFile(llvm::StringRef path) {
  auto buffer = readInputFile(path);
  if (!buffer)
    return buffer.takeError();
  return parseGpuSpecText((*buffer)->getBuffer(), path);
}
