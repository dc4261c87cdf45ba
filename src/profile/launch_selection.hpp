// Which kernel launches `rooflinectl profile` collects counters for, decided at each launch
// call as Nsight Compute's filters do (--kernel-regex, --nvtx-include, --launch-skip,
// --launch-count), plus --sample-every. Pure host code: the injection library and the tests
// drive it alike.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "profile/nvtx_filter.hpp"
#include "profile/profile_report.hpp"

namespace rooflinectl {

/// The reason a launch of an NCCL kernel is not profiled by default, as LaunchDecision::reason.
inline constexpr const char* kNcclNotProfiledReason =
    "NCCL kernel: not profiled by default (serializing a collective's launches and waiting for "
    "each can hang it; --include-nccl profiles it)";

/// Whether a demangled kernel name is one of NCCL's collective or point-to-point kernels: its
/// function name (the last identifier before the parameter list, after any namespace or return
/// type) begins with "ncclKernel" or "ncclDevKernel", the prefixes of NCCL's generated kernels
/// (e.g. "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
/// "ncclKernel_AllReduce_RING_LL_Sum_float(...)").
bool is_nccl_kernel(const std::string& demangled_name);

/// The decision for one launch: profiled, or the reason it is not.
struct LaunchDecision {
  bool profile = false;
  std::string reason;  ///< empty when profiled
};

/// Applies, in this order: NCCL kernels are left out unless config.include_nccl (they are not
/// candidates: --launch-skip and --launch-count do not count them); the name regex (ECMAScript,
/// searched in the demangled name) and the NVTX filters (any one matching) make a launch a
/// candidate; the first `launch_skip` candidates are skipped; of the rest, the 1st, (K+1)th,
/// (2K+1)th ... launch of each kernel name (K = sample_every) is kept; after `launch_count` kept
/// launches nothing more is.
class LaunchSelector {
 public:
  /// Throws a bad-input Error naming a bad regex or NVTX expression, or sample_every = 0.
  explicit LaunchSelector(const ProfileConfig& config);
  /// Decides for the next launch (call once per launch, in launch order).
  LaunchDecision decide(const std::string& demangled_name, const std::vector<std::string>& nvtx);
  /// Whether no later launch can be profiled (the launch count is reached).
  bool exhausted() const;

 private:
  ProfileConfig config_;
  std::optional<std::regex> name_regex_;
  std::vector<NvtxFilter> nvtx_filters_;
  uint64_t candidates_ = 0;
  uint64_t kept_ = 0;
  std::map<std::string, uint64_t> seen_per_kernel_;
};

/// Which counter set the injection library collects for the selected launches in one run of the
/// program: the byte set (one pass, user replay: run 1, and the only run of single-pass mode) or
/// the FLOP set of full mode's run 2 (kernel replay; cupti/metrics.hpp flop_metric_names).
enum class CounterRun { kBytes, kFlops };

/// The environment variables that carry `config`, the output directory and the counter set of
/// this run from `profile` to the injection library (names RFL_PROFILE_*), in a fixed order.
std::vector<std::pair<std::string, std::string>> profile_environment(
    const ProfileConfig& config, const std::string& output_dir,
    CounterRun run = CounterRun::kBytes);

/// The counter set profile_environment put in RFL_PROFILE_COUNTER_RUN, read through `lookup`:
/// kBytes when unset; a value other than "bytes" or "flops" is a bad-input Error naming it.
CounterRun counter_run_from_environment(const char* (*lookup)(const char*));

/// The inverse of profile_environment, read through `lookup` (getenv in the library): the config
/// and the output directory. A malformed number is a bad-input Error naming the variable.
ProfileConfig profile_config_from_environment(const char* (*lookup)(const char*),
                                              std::string& output_dir);

}  // namespace rooflinectl
