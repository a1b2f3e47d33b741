//===- GpuSpecKeys.h - The device JSON format's keys, dependency-free -*- C++
//-*-===//
//
// The keys of a device JSON file (docs/devices.md), in the order they are
// written: perf's GpuSpec reader and writer (lib/Support/GpuSpec.cpp) and
// perf-bench's device probe (built without LLVM) both take them from here.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_GPUSPECKEYS_H
#define PERF_SUPPORT_GPUSPECKEYS_H

#include <string_view>

namespace perf {

inline constexpr std::string_view kGpuSpecJsonKeys[] = {"name",
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

} // namespace perf

#endif // PERF_SUPPORT_GPUSPECKEYS_H
