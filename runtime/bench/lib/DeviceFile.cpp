//===- DeviceFile.cpp - Device JSON and host overhead table ---------------===//

#include "bench/DeviceFile.h"
#include "perf/Support/GpuSpecKeys.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <iterator>

using namespace bench;
using Json = nlohmann::ordered_json;

/// A figure as a JSON number: whole values as integers ("sms": 132,
/// "clock_mhz": 1980), the way people and the catalog write them, not 1980.0.
static Json number(double d) {
  if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 1e15)
    return static_cast<int64_t>(d);
  return d; // NaN and infinities serialize as null
}

const std::vector<std::string> &bench::deviceJsonKeys() {
  // perf's own device format (perf/Support/GpuSpecKeys.h).
  static const std::vector<std::string> keys(std::begin(perf::kGpuSpecJsonKeys),
                                             std::end(perf::kGpuSpecJsonKeys));
  return keys;
}

std::string bench::deviceJson(const ProbeResult &p) {
  Json o = Json::object();
  o["name"] = p.name;
  if (!p.source.empty())
    o["source"] = p.source;
  if (!p.base.empty())
    o["base"] = p.base;
  auto put = [&](const char *key, const std::optional<double> &v) {
    if (v)
      o[key] = number(*v);
  };
  if (p.sms)
    o["sms"] = *p.sms;
  if (p.coresPerSM)
    o["cores_per_sm"] = *p.coresPerSM;
  put("clock_mhz", p.clockMHz);
  put("fp64_tflops", p.fp64Tflops);
  put("fp32_tflops", p.fp32Tflops);
  put("fp16_tflops", p.fp16Tflops);
  put("tc_tf32_tflops", p.tcTf32Tflops);
  put("tc_fp16_tflops", p.tcFp16Tflops);
  put("tc_bf16_tflops", p.tcBf16Tflops);
  put("tc_fp8_tflops", p.tcFp8Tflops);
  put("tc_int8_tops", p.tcInt8Tops);
  put("mem_bw_gbs", p.memBwGBs);
  put("mem_gib", p.memGiB);
  put("l2_bw_gbs", p.l2BwGBs);
  put("l2_mib", p.l2MiB);
  put("smem_per_sm_kib", p.smemPerSMKiB);
  put("pcie_gbs", p.pcieGBs);
  put("nvlink_gbs", p.nvlinkGBs);
  // The probe's names come from the driver; replace invalid UTF-8 rather
  // than throw.
  return o.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string bench::hostOverheadJson(const ProbeResult &p,
                                    const std::string &source) {
  if (!p.launchUs && !p.memcpyAsyncCallUs)
    return "";
  Json o = Json::object();
  o["version"] = 1;
  o["source"] = source;
  Json runtime = Json::object();
  if (p.launchUs)
    runtime["cudaLaunchKernel"] = number(*p.launchUs);
  if (p.memcpyAsyncCallUs)
    runtime["cudaMemcpyAsync"] = number(*p.memcpyAsyncCallUs);
  o["runtime"] = std::move(runtime);
  return o.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

unsigned bench::fp32LanesPerSM(int major, int minor) {
  switch (major) {
  case 6:
    return minor == 0 ? 64 : 128;
  case 7:
    return 64; // Volta, Turing
  case 8:
    return minor == 0 ? 64 : 128; // A100 64; GA10x, Ada 128
  case 9:
    return 128; // Hopper
  case 10:
  case 12:
    return 128; // Blackwell
  default:
    return 0;
  }
}
