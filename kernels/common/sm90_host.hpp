// Host helpers of the sm_90a kernel paths (gemm_v2_wgmma_tma, flash_attention_v3_wgmma_tma):
// the current device's compute capability, from which core/kernel_dispatch.hpp selects them, and
// the TMA tensor-map encoding they need.
#pragma once

#include <cuda.h>  // CUtensorMap (a plain struct; no libcuda symbol is linked)

#include <cstdint>

#include "core/kernel_dispatch.hpp"

namespace rooflinectl {

/// The current device's compute capability. Throws environment_error when the CUDA calls fail.
ComputeCapability current_compute_capability();

/// Element type of a TMA tensor map: bf16 and fp16 (2 bytes), or FP8 E4M3 (1 byte, which the
/// driver knows as CU_TENSOR_MAP_DATA_TYPE_UINT8: TMA copies bytes, only wgmma interprets them).
enum class TensorMapElement { kBf16, kFp16, kE4m3 };

/// kBf16 when `bf16`, else kFp16: the 16-bit element of a point's dtype.
constexpr TensorMapElement tensor_map_element_16bit(bool bf16) {
  return bf16 ? TensorMapElement::kBf16 : TensorMapElement::kFp16;
}

/// Tensor map of a row-major tensor of `element`s with
/// `rank` (2 or 3) dimensions, innermost first: dims[0] elements per row, strides_bytes[i] the
/// byte distance between consecutive indices of dimension i + 1 (multiples of 16). Read in boxes
/// of box[0] × box[1] (× box[2]) elements with the `swizzle_bytes`-byte swizzle (128 or 64;
/// box[0] · element bytes <= swizzle_bytes), 256-byte L2 promotion, zero fill outside the tensor.
/// cuTensorMapEncodeTiled is reached through cudaGetDriverEntryPointByVersion (CUDA 12.0 ABI), so
/// nothing links libcuda. `who` and `what` name the kernel and the tensor in errors. Throws
/// environment_error when the driver lacks the entry point or refuses the map, and (a caller's
/// error, checked before the driver sees it) for another rank or swizzle or a box row wider than
/// the swizzle.
CUtensorMap encode_tensor_map_swizzled(const void* base, int rank, const uint64_t* dims,
                                       const uint64_t* strides_bytes, const uint32_t* box,
                                       int swizzle_bytes, TensorMapElement element, const char* who,
                                       const char* what);

}  // namespace rooflinectl
