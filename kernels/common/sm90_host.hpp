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

/// Tensor map of a row-major tensor of 16-bit elements (bf16 when `bf16`, fp16 otherwise) with
/// `rank` (2 or 3) dimensions, innermost first: dims[0] elements per row, strides_bytes[i] the
/// byte distance between consecutive indices of dimension i + 1 (multiples of 16). Read in boxes
/// of box[0] × box[1] (× box[2]) elements with the `swizzle_bytes`-byte swizzle (128 or 64;
/// box[0] · 2 <= swizzle_bytes), 256-byte L2 promotion, zero fill outside the tensor.
/// cuTensorMapEncodeTiled is reached through cudaGetDriverEntryPointByVersion (CUDA 12.0 ABI), so
/// nothing links libcuda. `who` and `what` name the kernel and the tensor in errors. Throws
/// environment_error when the driver lacks the entry point or refuses the map, and (a caller's
/// error, checked before the driver sees it) for another rank or swizzle or a box row wider than
/// the swizzle.
CUtensorMap encode_tensor_map_swizzled(const void* base, int rank, const uint64_t* dims,
                                       const uint64_t* strides_bytes, const uint32_t* box,
                                       int swizzle_bytes, bool bf16, const char* who,
                                       const char* what);

}  // namespace rooflinectl
