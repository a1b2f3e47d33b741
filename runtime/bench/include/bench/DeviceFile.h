//===- DeviceFile.h - What --probe measured, as a device JSON ---*- C++ -*-===//
//
// The keys are those of perf::toJson(GpuSpec) (lib/Support/GpuSpec.cpp), so
// the file feeds --perf-device-file directly. Figures the probe did not
// obtain are left out; with a `base` catalog name the reader fills them from
// the catalog, without one they read as 0 ("the GPU has none").
//
//===----------------------------------------------------------------------===//

#ifndef PERF_BENCH_DEVICEFILE_H
#define PERF_BENCH_DEVICEFILE_H

#include <optional>
#include <string>
#include <vector>

namespace bench {

struct ProbeResult {
  std::string name;
  std::string source;
  std::string base; // catalog GPU for the figures not probed, or empty
  std::optional<unsigned> sms, coresPerSM;
  std::optional<double> clockMHz;
  // Achieved, not datasheet, throughput (TFLOP/s, TOP/s).
  std::optional<double> fp64Tflops, fp32Tflops, fp16Tflops;
  std::optional<double> tcTf32Tflops, tcFp16Tflops, tcBf16Tflops;
  std::optional<double> tcFp8Tflops, tcInt8Tops;
  // GB/s (1e9 bytes/s), GiB, MiB, KiB.
  std::optional<double> memBwGBs, memGiB, l2BwGBs, l2MiB, smemPerSMKiB;
  std::optional<double> pcieGBs, nvlinkGBs;
  // Not device-file keys: the host overhead table takes these.
  std::optional<double> launchUs, memcpyAsyncCallUs;
};

/// The device JSON text for --perf-device-file.
std::string deviceJson(const ProbeResult &probe);

/// The keys deviceJson() may write, in order.
const std::vector<std::string> &deviceJsonKeys();

/// The host overhead table (docs/host-overheads.md) with the measured T4
/// entries, or an empty string if none was measured.
std::string hostOverheadJson(const ProbeResult &probe,
                             const std::string &source);

/// FP32 lanes per SM for a compute capability (the CUDA programming guide's
/// arithmetic throughput table); 0 for one it does not know.
unsigned fp32LanesPerSM(int major, int minor);

} // namespace bench

#endif // PERF_BENCH_DEVICEFILE_H
