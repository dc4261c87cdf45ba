// What `compare` reads of a measured `rooflinectl layer` report (docs/layer-report-schema.json):
// where it ran, and per (batch, length) each operator's median time, its noise and its kernel
// version. The layer report keeps no raw samples, so this is all a layer comparison has.
// Plain records, no CUDA; io/layer_json.hpp reads them, compare/layer_compare.hpp compares them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rooflinectl {

/// Version of the layer JSON layout ("layer_schema_version", its first key); the writer
/// (render/layer_writer.hpp) and the reader share it. Bump on an incompatible change.
inline constexpr int kLayerSchemaVersion = 2;

/// One operator of one layer point as measured.
struct LayerOperatorTime {
  std::string role;      ///< the operator's place in the layer: "input_norm", "qkv_proj", ...
  std::string sweep_op;  ///< the sweep operator that ran it: "rmsnorm", "gemm", ...
  /// The sweep point's shape as written (compact JSON text), so two reports can tell whether the
  /// same problem ran; two operators of one role with different shapes are not comparable.
  std::string shape_json;
  std::string status;      ///< "ok" | "skipped" | "failed" | "interrupted" | "refused"
  std::string version;     ///< kernel version that ran; empty when none ran
  bool validated = false;  ///< the output matched the float64 reference before timing
  /// Median of the timed samples, seconds; nullopt when not measured (null_reason says why).
  std::optional<double> time_s;
  std::string null_reason;
  /// Half-width of the median's 95% confidence interval over the median; nullopt when unknown.
  std::optional<double> median_noise;
};

/// One (batch, length) of the layer view.
struct LayerPointTimes {
  int64_t batch = 1;
  int64_t length = 0;                  ///< prefill L or decode context
  std::vector<LayerOperatorTime> ops;  ///< layer order
  /// Σ measured operator times; nullopt while an operator is unmeasured.
  std::optional<double> layer_time_s;
};

/// A measured layer report as `compare` needs it.
struct LayerTimes {
  std::string model_id;    ///< preset id, e.g. "llama-3.1-8b"
  std::string model_name;  ///< e.g. "Meta Llama 3.1 8B"
  std::string phase;       ///< "prefill" | "decode"
  std::string kv_dtype;    ///< "auto" | "fp8_e4m3"
  int layers = 0;          ///< the model's layer count
  std::string device_name;
  std::string tool_version;
  std::string git_revision;  ///< empty when unknown
  std::string timestamp_utc;
  std::vector<LayerPointTimes> points;  ///< batch-major, as the report lists them
};

}  // namespace rooflinectl
