// Kernel names as people read them. Pure host code.
#pragma once

#include <string>

namespace rooflinectl {

/// The demangled form of an Itanium C++ ABI symbol (what nvcc and the host compiler emit), e.g.
/// "_Z6vecAddPKfS0_Pfi" → "vecAdd(float const*, float const*, float*, int)"; a name that is
/// not a mangled C++ symbol (a C or Triton kernel, "triton_poi_fused_0") is returned unchanged.
std::string demangle_kernel_name(const std::string& symbol);

}  // namespace rooflinectl
