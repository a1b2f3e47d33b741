//===- DeviceFile.cpp - Device JSON and host overhead table ---------------===//

#include "bench/DeviceFile.h"
#include "bench/Json.h"

using namespace bench;

const std::vector<std::string> &bench::deviceJsonKeys() {
  static const std::vector<std::string> keys = {"name",
                                                "source",
                                                "base",
                                                "sms",
                                                "cores_per_sm",
                                                "clock_mhz",
                                                "fp64_tflops",
                                                "fp32_tflops",
                                                "fp16_tflops",
                                                "tc_tf32_tflops",
                                                "tc_fp16_tflops",
                                                "tc_bf16_tflops",
                                                "tc_fp8_tflops",
                                                "tc_int8_tops",
                                                "mem_bw_gbs",
                                                "mem_gib",
                                                "l2_bw_gbs",
                                                "l2_mib",
                                                "smem_per_sm_kib",
                                                "pcie_gbs",
                                                "nvlink_gbs"};
  return keys;
}

std::string bench::deviceJson(const ProbeResult &p) {
  JsonValue o = JsonValue::object();
  o.set("name", JsonValue::string(p.name));
  if (!p.source.empty())
    o.set("source", JsonValue::string(p.source));
  if (!p.base.empty())
    o.set("base", JsonValue::string(p.base));
  auto put = [&](const char *key, const std::optional<double> &v) {
    if (v)
      o.set(key, JsonValue::number(*v));
  };
  if (p.sms)
    o.set("sms", JsonValue::number(*p.sms));
  if (p.coresPerSM)
    o.set("cores_per_sm", JsonValue::number(*p.coresPerSM));
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
  return o.dump() + "\n";
}

std::string bench::hostOverheadJson(const ProbeResult &p,
                                    const std::string &source) {
  if (!p.launchUs && !p.memcpyAsyncCallUs)
    return "";
  JsonValue o = JsonValue::object();
  o.set("version", JsonValue::number(1));
  o.set("source", JsonValue::string(source));
  JsonValue runtime = JsonValue::object();
  if (p.launchUs)
    runtime.set("cudaLaunchKernel", JsonValue::number(*p.launchUs));
  if (p.memcpyAsyncCallUs)
    runtime.set("cudaMemcpyAsync", JsonValue::number(*p.memcpyAsyncCallUs));
  o.set("runtime", runtime);
  return o.dump() + "\n";
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
