#include "kernels/common/sm90_host.hpp"

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "gpu/cuda_check.hpp"

namespace rooflinectl {
namespace {

/// cuTensorMapEncodeTiled from the driver that the runtime already loaded (CUDA 12.0 ABI).
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder(const char* who) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  RFL_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000,
                                                  cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || function == nullptr) {
    throw environment_error(
        fmt::format("{}: the CUDA driver does not provide cuTensorMapEncodeTiled (needs a CUDA "
                    "12.0 or newer driver)",
                    who));
  }
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
}

}  // namespace

ComputeCapability current_compute_capability() {
  int device = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  int major = 0;
  int minor = 0;
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return {major, minor};
}

CUtensorMap encode_tensor_map_swizzled(const void* base, int rank, const uint64_t* dims,
                                       const uint64_t* strides_bytes, const uint32_t* box,
                                       int swizzle_bytes, TensorMapElement element, const char* who,
                                       const char* what) {
  constexpr int kMaxRank = 3;
  const uint32_t elem_bytes = element == TensorMapElement::kE4m3 ? 1 : 2;
  if (rank < 2 || rank > kMaxRank) {
    throw environment_error(fmt::format("{}: tensor map of rank {} for {}", who, rank, what));
  }
  if ((swizzle_bytes != 128 && swizzle_bytes != 64) ||
      box[0] * elem_bytes > static_cast<uint32_t>(swizzle_bytes)) {
    throw environment_error(
        fmt::format("{}: box rows of {} elements under a {}-byte swizzle for {}", who, box[0],
                    swizzle_bytes, what));
  }
  cuuint64_t global_dims[kMaxRank] = {};
  cuuint64_t global_strides[kMaxRank - 1] = {};
  cuuint32_t box_dims[kMaxRank] = {};
  cuuint32_t element_strides[kMaxRank] = {};
  for (int i = 0; i < rank; ++i) {
    global_dims[i] = dims[i];
    box_dims[i] = box[i];
    element_strides[i] = 1;
    if (i + 1 < rank) global_strides[i] = strides_bytes[i];
  }
  CUtensorMap map;
  const CUresult status = tensor_map_encoder(who)(
      &map,
      element == TensorMapElement::kE4m3   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
      : element == TensorMapElement::kBf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                           : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
      static_cast<cuuint32_t>(rank), const_cast<void*>(base), global_dims, global_strides, box_dims,
      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      swizzle_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS) {
    throw environment_error(fmt::format(
        "{}: cuTensorMapEncodeTiled refused {} (dims {} × {} × {}, box {} × {} × {}): CUresult {}",
        who, what, global_dims[0], global_dims[1], rank > 2 ? global_dims[2] : 1, box_dims[0],
        box_dims[1], rank > 2 ? box_dims[2] : 1, static_cast<int>(status)));
  }
  return map;
}

}  // namespace rooflinectl
