// What `rooflinectl profile --mode full` adds to a profile: the selected launches of run 2 (the
// FLOP run, kernel replay) matched to those of run 1 (the byte run), as Nsight Compute's
// application replay matches kernels across runs of a program ("--replay-mode application",
// matched by name and grid by default), and the pipe whose roof a launch's FLOPs go under. Pure
// host code: the CPU tests drive it with synthetic records.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/pipe.hpp"
#include "core/shape.hpp"
#include "profile/profile_report.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// The run-2 counterpart of one selected launch of run 1.
struct FlopMatch {
  std::optional<size_t> run2_index;  ///< index into run 2's selected launches; nullopt: none
  std::string null_reason;           ///< why there is none; empty when run2_index is set
};

/// Matches run 1's selected launches of one process (`run1`, in launch order) with run 2's
/// (`run2`, in launch order) by their index in that sequence: launch i of run 1 has launch i of
/// run 2 when both have the same mangled name, grid, block and dynamic shared memory; otherwise
/// its reason names what run 2 launched at that index ("run 2 launched K grid=(..) block=(..)
/// smem=N at this index") or says that run 2 made fewer selected launches. One entry per launch
/// of `run1`. Pure.
std::vector<FlopMatch> match_flop_run(const std::vector<LaunchRecord>& run1,
                                      const std::vector<LaunchRecord>& run2);

/// The class of FLOPs with the largest count in a launch's counters, and the roof it goes under.
struct FlopPipe {
  std::string label;  ///< "bf16 tensor", "fp16 tensor", "tf32 tensor", "fp8 tensor", "fp32 SIMT",
                      ///< "fp16 SIMT" or "fp64 SIMT"
  double flop = 0;    ///< that class's FLOPs
  /// The roof's pipe and dtype (roof_selection's compute_ceiling_kind): bf16 and fp16 tensor,
  /// fp32 SIMT; nullopt for the classes the peak sets have no ceiling for (tf32, fp8, fp16 and
  /// fp64 SIMT).
  std::optional<Pipe> pipe;
  Dtype dtype = Dtype::kBf16;
};

/// The class of `total`'s counted FLOPs that is largest and > 0 (the first in the order of
/// FlopPipe::label on a tie): tensor_bf16_flop, tensor_fp16_flop, tensor_tf32_flop,
/// tensor_fp8_flop, fp32_flop(), fp16_flop(), fp64_flop(). nullopt when no class was counted
/// above 0 (single-pass mode counts bf16 tensor FLOPs only). Pure.
std::optional<FlopPipe> dominant_flop_pipe(const KernelCounters& total);

}  // namespace rooflinectl
