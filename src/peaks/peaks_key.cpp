#include "peaks/peaks_key.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "gpu/cuda_check.hpp"
#include "peaks/peaks_cache.hpp"

namespace rooflinectl {
namespace {

constexpr const char* kNvidiaVersionFile = "/proc/driver/nvidia/version";
constexpr double kHzPerKHz = 1e3;

std::string format_uuid(const cudaUUID_t& uuid) {
  std::string hex;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) hex += '-';
    hex += fmt::format("{:02x}", static_cast<unsigned char>(uuid.bytes[i]));
  }
  return "GPU-" + hex;
}

}  // namespace

PeaksKey query_peaks_key(int index) {
  cudaDeviceProp prop{};
  RFL_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  PeaksKey key;
  key.gpu_uuid = format_uuid(prop.uuid);
  int clock_khz = 0;
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, index));
  key.sm_clock_max_hz = clock_khz * kHzPerKHz;
  // The CUDA driver API version (e.g. 13000) stays the same across driver updates that can change
  // clocks and firmware, so the kernel module's own version is preferred when it can be read.
  std::ifstream in(kNvidiaVersionFile);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (const auto module = parse_nvidia_module_version(text.str())) {
    key.driver = *module;
  } else {
    int driver = 0;
    RFL_CUDA_CHECK(cudaDriverGetVersion(&driver));
    key.driver = fmt::format("cuda-{}", driver);
  }
  return key;
}

}  // namespace rooflinectl
