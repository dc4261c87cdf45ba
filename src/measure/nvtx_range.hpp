// NVTX push/pop ranges in rooflinectl's own domain, so that Nsight Systems shows which point a
// timed launch belongs to and Nsight Compute can select it: `ncu --nvtx --nvtx-include
// "rooflinectl@<name>/"`, which in `--replay-mode range` also defines the range it replays as one
// result (Nsight Compute CLI documentation, "NVTX Filtering"; Profiling Guide, "Range Replay").
// NVTX 3 is header-only (CUDA toolkit include/nvtx3): without a tool attached each call is a
// call through an empty function table.
#pragma once

#include <string>

namespace rooflinectl {

/// The NVTX domain of every range rooflinectl marks.
inline constexpr const char* kNvtxDomain = "rooflinectl";

/// Pushes an NVTX range named `name` in kNvtxDomain on construction and pops it on destruction
/// (same thread). Never throws; an empty name marks nothing.
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  bool pushed_ = false;
};

}  // namespace rooflinectl
