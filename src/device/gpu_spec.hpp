// Datasheet figures of known GPU models (configs/gpus/<id>.json, embedded in the binary at build
// time), for `rooflinectl model --gpu NAME` and as the "datasheet" roof of a sweep. Pure host
// code: no CUDA include, so the table loads and is tested on machines without a GPU.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rooflinectl {

/// One datasheet number with where it came from ("NVIDIA H200 datasheet, Nov 2024", ...).
/// A figure the table could not source is absent: value 0 and an empty source (see is_known).
struct SpecValue {
  double value = 0;
  std::string source;
};

/// True when the spec file gave this figure (every given figure has value > 0 and a source).
inline bool is_known(const SpecValue& v) { return !v.source.empty(); }

/// Datasheet figures of one GPU model (dense rates, never the 2:4-sparse ones). Units are SI and
/// in the field names: bytes, bytes/s, Hz, FLOP/s.
struct GpuSpec {
  std::string id;                         ///< CLI name, e.g. "h200-sxm"
  std::string name;                       ///< marketing name, e.g. "NVIDIA H200 SXM 141GB"
  std::vector<std::string> device_names;  ///< names CUDA reports for it, e.g. "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::string sm_count_source;  ///< where the SM count comes from (the spec file's "source")
  /// memory_bytes and hbm_bytes_per_s are always known; l2_bytes and boost_clock_hz may be absent.
  SpecValue memory_bytes, hbm_bytes_per_s, l2_bytes, boost_clock_hz;
  std::map<std::string, SpecValue>
      dense_tensor_flop_per_s;  ///< keys "fp16", "bf16", "tf32", "fp8" (absent if none)
  SpecValue fp32_flop_per_s, fp64_flop_per_s;  ///< non-tensor (CUDA-core) rates; may be absent
};

/// The built-in table (configs/gpus/*.json embedded at build time so the binary needs no data dir),
/// validated on first use, in file-list order (CMakeLists.txt). Throws a bad-input Error naming the
/// file if an embedded spec is invalid (a build-time mistake the unit tests catch) or two share an
/// id.
const std::vector<GpuSpec>& builtin_gpu_specs();

/// Parses + validates one spec file's JSON text. Keys: "id", "name", "device_names" (non-empty
/// array), "compute_capability" ("9.0"), "sm_count", "memory_bytes", "hbm_bytes_per_s" (required),
/// "l2_bytes", "boost_clock_hz", "dense_tensor_flop_per_s" {"fp16","bf16","tf32","fp8"},
/// "fp32_flop_per_s", "fp64_flop_per_s" (optional); each figure an object {"value", "source"}.
/// Checks: unknown keys refused; every value > 0 and inside a plausible range for its unit (so
/// 4.8 written for 4.8e12 B/s is caught); every source non-empty; sm_count an integer. Throws a
/// bad-input Error naming `origin` (the file) and the key.
GpuSpec parse_gpu_spec(const std::string& json_text, const std::string& origin);

/// Spec matching a device by name (one of device_names), compute capability and SM count; nullptr
/// when unknown (the caller falls back to counter-derived peaks).
const GpuSpec* match_gpu_spec(const std::string& device_name, int cc_major, int cc_minor,
                              int sm_count);

/// Spec by id, ignoring ASCII case ("H200-SXM" finds h200-sxm); a bad-input Error listing the
/// known ids otherwise.
const GpuSpec& find_gpu_spec(const std::string& id);

}  // namespace rooflinectl
