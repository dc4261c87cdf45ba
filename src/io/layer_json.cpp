#include "io/layer_json.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "core/json_input.hpp"

namespace rooflinectl {
namespace {

// A measured time or noise: null is nullopt; a negative or non-finite number is refused.
std::optional<double> non_negative(const JsonObjectReader& r, const std::string& key,
                                   const std::string& where) {
  const std::optional<double> v = r.get_optional_double(key);
  if (v && !(std::isfinite(*v) && *v >= 0)) {
    throw bad_input(
        fmt::format("{}: key '{}' is {}: a time or noise must be finite and >= 0", where, key, *v));
  }
  return v;
}

LayerOperatorTime operator_time(const nlohmann::json& op, const std::string& origin,
                                const std::string& path) {
  const JsonObjectReader r(op, origin, path);
  LayerOperatorTime t;
  t.role = r.get_string("name");
  const std::string measured_path = path + ".measured";
  const JsonObjectReader m = r.get_object("measured");
  t.sweep_op = m.get_string("sweep_operator");
  m.get_object("shape");  // an object, or a bad-input Error naming the key
  t.shape_json = op.at("measured").at("shape").dump();
  t.status = m.get_string("status");
  t.version = m.get_optional_string("version").value_or("");
  t.validated = m.get_bool("validated");
  const std::string where = fmt::format("{}: {}", origin, measured_path);
  t.time_s = non_negative(m, "time_s", where);
  t.null_reason = m.get_optional_string("time_null_reason").value_or("");
  t.median_noise = non_negative(m, "median_noise", where);
  // The writer gives a time only to an operator that ran, validated and timed (status ok); a time
  // beside another status, or unvalidated, is an edited or damaged file.
  if (t.time_s && (t.status != "ok" || !t.validated)) {
    throw bad_input(fmt::format(
        "{}: time_s is {} but the operator {} (status {}, validated {}): a time is written only "
        "for an operator that ran and validated; the file was edited or damaged",
        where, *t.time_s, t.role, t.status, t.validated ? "true" : "false"));
  }
  return t;
}

// The writer's layer time is the sum of the operator medians (model/layer_measured.hpp); a file
// where it is not was edited or is damaged, and its gate would judge a number no run produced.
void check_layer_sum(const LayerPointTimes& p, const std::string& origin, const std::string& path) {
  double sum = 0;
  for (const LayerOperatorTime& op : p.ops) {
    if (!op.time_s) {
      if (p.layer_time_s) {
        throw bad_input(fmt::format(
            "{}: {}.measured.layer_time_s is {} while operator {} has no time: the layer time is "
            "null unless every operator was measured",
            origin, path, *p.layer_time_s, op.role));
      }
      return;
    }
    sum += *op.time_s;
  }
  if (!p.layer_time_s) {
    throw bad_input(fmt::format(
        "{}: {}.measured.layer_time_s is null although every operator has a time (their sum is "
        "{})",
        origin, path, sum));
  }
  // 1e-5 relative: a report rounded to six significant digits (jq, a spreadsheet) still reads.
  if (std::fabs(*p.layer_time_s - sum) > 1e-5 * sum) {
    throw bad_input(fmt::format(
        "{}: {}.measured.layer_time_s is {} but its operators' times sum to {}: the file was "
        "edited or damaged",
        origin, path, *p.layer_time_s, sum));
  }
}

// The writer derives the point's model time (layers x layer time), and from it decode's tokens/s
// (batch / model time) or prefill's TTFT (the model time); `report` prints them from the layer
// time, so a file whose stored figures disagree was edited and is refused rather than silently
// recomputed. The same 1e-5 relative tolerance as check_layer_sum.
void check_derived_times(const JsonObjectReader& measured, const LayerPointTimes& p, int layers,
                         bool decode, const std::string& where) {
  const auto check = [&](const char* key, const std::optional<double>& want) {
    const std::optional<double> got = non_negative(measured, key, where);
    if (!got || !want) {
      if (got.has_value() != want.has_value()) {
        throw bad_input(fmt::format(
            "{}: key '{}' is {} while layer_time_s is {}: the file was edited or damaged", where,
            key, got ? fmt::format("{}", *got) : "null", p.layer_time_s ? "set" : "null"));
      }
      return;
    }
    if (std::fabs(*got - *want) > 1e-5 * *want) {
      throw bad_input(fmt::format(
          "{}: key '{}' is {} but the layer time gives {}: the file was edited or damaged", where,
          key, *got, *want));
    }
  };
  std::optional<double> model_s;
  if (p.layer_time_s) model_s = layers * *p.layer_time_s;
  check("model_time_s", model_s);
  if (decode) {
    check("decode_tokens_per_s",
          model_s && *model_s > 0 ? std::optional<double>(p.batch / *model_s) : std::nullopt);
  } else {
    check("ttft_s", model_s);
  }
}

}  // namespace

bool is_layer_report(const nlohmann::json& document) {
  return document.is_object() && document.contains("layer_schema_version");
}

bool is_layer_report_file(const std::string& path) {
  try {
    // Only the top-level members are kept, as is_profile_report_file does.
    using Event = nlohmann::json::parse_event_t;
    const auto top_level_only = [](int depth, Event event, nlohmann::json& /*parsed*/) {
      return depth == 0 || (depth == 1 && (event == Event::key || event == Event::value));
    };
    const nlohmann::json top =
        nlohmann::json::parse(read_text_file(path, "report"), top_level_only);
    return is_layer_report(top);
  } catch (const std::exception&) {
    return false;
  }
}

LayerTimes layer_times_from_json(const nlohmann::json& document, const std::string& origin) {
  const JsonObjectReader r(document, origin, "");
  const int version = r.get_int("layer_schema_version");
  if (version != kLayerSchemaVersion) {
    throw bad_input(fmt::format(
        "{}: layer_schema_version {} is not supported: this rooflinectl reads version {} (run "
        "`rooflinectl layer` again with this build)",
        origin, version, kLayerSchemaVersion));
  }
  const std::string basis = r.get_string("basis");
  if (basis != "measured" && basis != "analytic") {
    throw bad_input(
        fmt::format("{}: key 'basis' is '{}': allowed measured, analytic", origin, basis));
  }
  if (basis == "analytic" || r.is_null("measurement")) {
    throw bad_input(fmt::format(
        "{}: an analytic layer report (layer --analytic: datasheet lower bounds, nothing "
        "measured): compare gates measured layers; run `rooflinectl layer` without --analytic",
        origin));
  }
  LayerTimes t;
  const JsonObjectReader model = r.get_object("model");
  t.model_id = model.get_string("id");
  t.model_name = model.get_string("name");
  t.layers = model.get_int("layers");
  t.phase = r.get_string("phase");
  if (t.phase != "prefill" && t.phase != "decode") {
    throw bad_input(
        fmt::format("{}: key 'phase' is '{}': allowed prefill, decode", origin, t.phase));
  }
  t.kv_dtype = r.get_string("kv_dtype");
  if (t.kv_dtype != "auto" && t.kv_dtype != "fp8_e4m3") {
    throw bad_input(
        fmt::format("{}: key 'kv_dtype' is '{}': allowed auto, fp8_e4m3", origin, t.kv_dtype));
  }
  const JsonObjectReader measurement = r.get_object("measurement");
  t.device_name = measurement.get_string("device_name");
  t.tool_version = measurement.get_string("tool_version");
  t.git_revision = measurement.get_optional_string("git_revision").value_or("");
  t.timestamp_utc = measurement.get_string("timestamp_utc");
  const std::string length_key = r.get_string("length_axis");
  const std::vector<JsonObjectReader> points = r.get_object_array("points");
  const nlohmann::json& point_json = document.at("points");
  for (size_t k = 0; k < points.size(); ++k) {
    const std::string path = fmt::format("points[{}]", k);
    LayerPointTimes p;
    p.batch = points[k].get_int64("batch");
    p.length = points[k].get_int64(length_key);
    p.layer_time_s = non_negative(points[k].get_object("measured"), "layer_time_s",
                                  fmt::format("{}: {}.measured", origin, path));
    points[k].get_object_array("operators");  // an array of objects, or a bad-input Error
    const nlohmann::json& ops = point_json.at(k).at("operators");
    for (size_t i = 0; i < ops.size(); ++i) {
      p.ops.push_back(operator_time(ops.at(i), origin, fmt::format("{}.operators[{}]", path, i)));
    }
    check_layer_sum(p, origin, path);
    check_derived_times(points[k].get_object("measured"), p, t.layers, t.phase == "decode",
                        fmt::format("{}: {}.measured", origin, path));
    if (k > 0 && p.ops.size() != t.points.front().ops.size()) {
      throw bad_input(fmt::format("{}: {} has {} operators, points[0] {}: one layer has one set",
                                  origin, path, p.ops.size(), t.points.front().ops.size()));
    }
    t.points.push_back(std::move(p));
  }
  return t;
}

LayerTimes load_layer_times(const std::string& path) {
  return layer_times_from_json(parse_json_text(read_text_file(path, "layer report"), path), path);
}

}  // namespace rooflinectl
