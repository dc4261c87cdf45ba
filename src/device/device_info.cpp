#include "device/device_info.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "device/environment_facts.hpp"
#include "gpu/cuda_check.hpp"

namespace rooflinectl {
namespace {

constexpr double kHzPerKHz = 1e3;

int device_attribute(cudaDeviceAttr attribute, int index) {
  int value = 0;
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, index));
  return value;
}

// cudaDeviceGetPCIBusId of `device` ("0000:19:00.0"); "" when CUDA gives none.
std::string pci_bus_id(int device) {
  char id[32] = {};  // "domain:bus:device.function": 13 characters and the terminator
  if (cudaDeviceGetPCIBusId(id, static_cast<int>(sizeof(id)), device) != cudaSuccess) {
    cudaGetLastError();
    return "";
  }
  return id;
}

}  // namespace

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    // No driver / no device is an answer here, not an error; clear it so that later calls do not
    // report it again.
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

std::string no_device_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // as device_count: an answer, not a sticky error
    return no_device_cause(cudaGetErrorName(status), cudaGetErrorString(status),
                           nvidia_driver_loaded());
  }
  return count == 0 ? "cudaGetDeviceCount reports 0 devices" : "";
}

std::string no_device_message() {
  return fmt::format("no CUDA GPU found ({}): {} (`rooflinectl doctor` says more)",
                     no_device_reason(), no_device_fix(nvidia_driver_loaded()));
}

std::string gpu_uuid_text(const unsigned char* bytes) {
  std::string hex;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) hex += '-';
    hex += fmt::format("{:02x}", bytes[i]);
  }
  return "GPU-" + hex;
}

DeviceRecord query_device(int index) {
  const int count = device_count();
  if (count == 0) {
    throw environment_error(no_device_message());
  }
  if (index < 0 || index >= count) {
    throw bad_input(fmt::format("invalid --device {}: allowed 0..{}", index, count - 1));
  }
  cudaDeviceProp prop{};
  RFL_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));

  DeviceRecord record;
  record.index = index;
  record.name = prop.name;
  record.cc_major = prop.major;
  record.cc_minor = prop.minor;
  record.sm_count = prop.multiProcessorCount;
  record.l2_bytes = prop.l2CacheSize;
  record.memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  record.memory_bus_width_bits = prop.memoryBusWidth;
  // CUDA 13 dropped clockRate/memoryClockRate from cudaDeviceProp; the attributes remain (kHz).
  record.sm_clock_max_hz = device_attribute(cudaDevAttrClockRate, index) * kHzPerKHz;
  record.memory_clock_hz = device_attribute(cudaDevAttrMemoryClockRate, index) * kHzPerKHz;
  record.uuid = gpu_uuid_text(reinterpret_cast<const unsigned char*>(prop.uuid.bytes));
  record.pci_bus_id = pci_bus_id(index);
  RFL_CUDA_CHECK(cudaDriverGetVersion(&record.driver_version));
  RFL_CUDA_CHECK(cudaRuntimeGetVersion(&record.runtime_version));
  return record;
}

}  // namespace rooflinectl
