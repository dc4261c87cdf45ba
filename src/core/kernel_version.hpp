// Kernel versions as each operator declares them (OperatorSpec::versions) and as a sweep asks
// for them (`--kernel OP=VERSION`, a config's "kernels" object): the declaration record, the
// lookup of a requested key and the parsing of the flag, as pure host code so that they are
// unit-tested.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rooflinectl {

/// One version of an operator's kernels, as the operator declares it.
struct KernelVersion {
  std::string key;    ///< what `--kernel OP=KEY` names, e.g. "v2"
  std::string name;   ///< what OperatorRun::version() reports when it runs: "gemm_v2_wgmma_tma"
  std::string needs;  ///< where it runs, e.g. "compute capability 9.0 (sm_90a code)"
  /// Key of the version that runs instead where `needs` is not met (the point's version says
  /// which ran); empty when it runs wherever the operator does.
  std::string fallback;
};

/// The version key that asks for an operator's default version.
inline constexpr const char* kDefaultVersionKey = "";

/// Requested version key per operator name, e.g. {"gemm": "v1"}; an operator not named runs its
/// default version.
using KernelRequests = std::map<std::string, std::string>;

/// The version of operator `op` that `key` names among `versions`; an empty key
/// (kDefaultVersionKey) names `default_key`. Throws bad_input "invalid --kernel 'OP=KEY': unknown
/// version 'KEY' of OP (allowed: v1, v2, v3)" for any other key.
const KernelVersion& find_kernel_version(const std::string& op,
                                         const std::vector<KernelVersion>& versions,
                                         const std::string& default_key, const std::string& key);

/// The requests of the `--kernel` values in `values`, each "OP=VERSION" or a comma-separated
/// list of them ("gemm=v1,flash_attention=v2"). Checks the form only (operator and version names
/// are checked against the operators' declarations later). Throws bad_input "invalid --kernel
/// 'TEXT': ..." for an item without one '=', an empty operator or version, or an operator named
/// twice.
KernelRequests parse_kernel_requests(const std::vector<std::string>& values);

}  // namespace rooflinectl
