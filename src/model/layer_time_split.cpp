#include "model/layer_time_split.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "result/layer_times.hpp"

namespace rooflinectl {
namespace {

const nlohmann::json& member(const nlohmann::json& object, const char* key,
                             const std::string& where) {
  if (!object.is_object() || !object.contains(key)) {
    throw bad_input(fmt::format("{}: key '{}' missing (a layer report needs it)", where, key));
  }
  return object.at(key);
}

std::string string_at(const nlohmann::json& object, const char* key, const std::string& where) {
  const nlohmann::json& v = member(object, key, where);
  if (!v.is_string()) throw bad_input(fmt::format("{}: key '{}' is not a string", where, key));
  return v.get<std::string>();
}

int64_t integer_at(const nlohmann::json& object, const char* key, const std::string& where) {
  const nlohmann::json& v = member(object, key, where);
  if (!v.is_number_integer()) {
    throw bad_input(fmt::format("{}: key '{}' is not an integer", where, key));
  }
  return v.get<int64_t>();
}

double number_at(const nlohmann::json& object, const char* key, const std::string& where) {
  const nlohmann::json& v = member(object, key, where);
  if (!v.is_number()) throw bad_input(fmt::format("{}: key '{}' is not a number", where, key));
  return v.get<double>();
}

bool boolean_at(const nlohmann::json& object, const char* key, const std::string& where) {
  const nlohmann::json& v = member(object, key, where);
  if (!v.is_boolean())
    throw bad_input(fmt::format("{}: key '{}' is not true or false", where, key));
  return v.get<bool>();
}

/// A number, or nullopt for null.
std::optional<double> optional_number_at(const nlohmann::json& object, const char* key,
                                         const std::string& where) {
  const nlohmann::json& v = member(object, key, where);
  if (v.is_null()) return std::nullopt;
  if (!v.is_number()) throw bad_input(fmt::format("{}: key '{}' is not a number", where, key));
  return v.get<double>();
}

std::vector<int64_t> integers_at(const nlohmann::json& object, const char* key,
                                 const std::string& where) {
  const nlohmann::json& v = member(object, key, where);
  if (!v.is_array()) throw bad_input(fmt::format("{}: key '{}' is not an array", where, key));
  std::vector<int64_t> out;
  for (const nlohmann::json& x : v) {
    if (!x.is_number_integer()) {
      throw bad_input(fmt::format("{}: key '{}' holds a non-integer", where, key));
    }
    out.push_back(x.get<int64_t>());
  }
  return out;
}

}  // namespace

LayerTimeSplit layer_time_split(const LayerReport& r) {
  LayerTimeSplit split;
  split.model_name = r.preset.name;
  split.layers = r.preset.layers;
  split.omissions = r.omissions;
  split.decode = r.phase == LayerPhase::kDecode;
  split.basis = r.measurement ? "measured median times" : "datasheet lower bounds";
  split.device = r.measurement ? r.measurement->device_name : r.gpu.name;
  split.gpu_memory_bytes = r.gpu.memory_bytes.value;
  split.batches = r.batches;
  split.lengths = r.lengths;
  if (!r.points.empty()) {
    for (const LayerOperatorPrediction& op : r.points.front().ops)
      split.roles.push_back(op.op.name);
  }
  for (size_t k = 0; k < r.points.size(); ++k) {
    LayerSplitBar bar;
    bar.batch = r.points[k].point.batch;
    bar.length = r.points[k].point.seq_len;
    bar.peak_memory_bytes = r.points[k].peak_memory.total_bytes;
    bar.fits = r.points[k].peak_memory.fits;
    if (r.measurement) {
      const MeasuredLayerPoint& m = r.measurement->points[k];
      bar.layer_s = m.layer_time_s;
      for (const LayerOperatorMeasurement& op : m.ops) bar.op_s.push_back(op.time_s);
    } else {
      bar.layer_s = r.points[k].layer_time_s;
      for (const LayerOperatorPrediction& op : r.points[k].ops) {
        bar.op_s.push_back(op.time_lower_bound_s);
      }
    }
    split.bars.push_back(bar);
  }
  return split;
}

LayerTimeSplit layer_time_split_from_json(const nlohmann::json& d, const std::string& origin) {
  LayerTimeSplit split;
  const int64_t version = integer_at(d, "layer_schema_version", origin);
  if (version != kLayerSchemaVersion) {
    throw bad_input(fmt::format(
        "{}: layer_schema_version {} is not supported: this rooflinectl reads version {} (run "
        "`rooflinectl layer` again with this build)",
        origin, version, kLayerSchemaVersion));
  }
  const bool measured = string_at(d, "basis", origin) == "measured";
  split.model_name = string_at(member(d, "model", origin), "name", origin + ": model");
  split.layers =
      static_cast<int>(integer_at(member(d, "model", origin), "layers", origin + ": model"));
  split.decode = string_at(d, "phase", origin) == "decode";
  split.basis = measured ? "measured median times" : "datasheet lower bounds";
  split.device = measured ? string_at(member(d, "measurement", origin), "device_name",
                                      origin + ": measurement")
                          : string_at(member(d, "gpu", origin), "name", origin + ": gpu");
  split.gpu_memory_bytes = number_at(member(d, "gpu", origin), "memory_bytes", origin + ": gpu");
  split.batches = integers_at(d, "batches", origin);
  split.lengths = integers_at(d, "lengths", origin);
  const char* length_key = split.decode ? "context" : "seq_len";
  const nlohmann::json& points = member(d, "points", origin);
  if (!points.is_array()) throw bad_input(fmt::format("{}: key 'points' is not an array", origin));
  for (size_t k = 0; k < points.size(); ++k) {
    const std::string where = fmt::format("{}: points[{}]", origin, k);
    const nlohmann::json& p = points[k];
    LayerSplitBar bar;
    bar.batch = integer_at(p, "batch", where);
    bar.length = integer_at(p, length_key, where);
    const nlohmann::json& peak = member(p, "peak_memory", where);
    bar.peak_memory_bytes = number_at(peak, "total_bytes", where + ".peak_memory");
    bar.fits = boolean_at(peak, "fits", where + ".peak_memory");
    bar.layer_s = measured ? optional_number_at(member(p, "measured", where), "layer_time_s", where)
                           : optional_number_at(p, "layer_time_s", where);
    const nlohmann::json& ops = member(p, "operators", where);
    if (!ops.is_array()) throw bad_input(fmt::format("{}: key 'operators' is not an array", where));
    for (size_t i = 0; i < ops.size(); ++i) {
      const std::string op_where = fmt::format("{}.operators[{}]", where, i);
      if (k == 0) split.roles.push_back(string_at(ops[i], "name", op_where));
      const std::optional<double> s =
          measured ? optional_number_at(member(ops[i], "measured", op_where), "time_s", op_where)
                   : optional_number_at(ops[i], "time_lower_bound_s", op_where);
      bar.op_s.push_back(s);
    }
    split.bars.push_back(bar);
  }
  const nlohmann::json& omissions = member(d, "omissions", origin);
  if (!omissions.is_array()) {
    throw bad_input(fmt::format("{}: key 'omissions' is not an array", origin));
  }
  for (const nlohmann::json& line : omissions) {
    if (!line.is_string()) {
      throw bad_input(fmt::format("{}: key 'omissions' holds a non-string", origin));
    }
    split.omissions.push_back(line.get<std::string>());
  }
  return split;
}

}  // namespace rooflinectl
