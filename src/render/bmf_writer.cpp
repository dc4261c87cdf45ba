#include "render/bmf_writer.hpp"

#include <cmath>
#include <optional>

#include "compare/compare.hpp"

namespace rooflinectl {
namespace {

using Json = nlohmann::ordered_json;

constexpr double kNsPerS = 1e9;

void put_measure(Json& benchmark, const char* measure, const std::optional<double>& value) {
  if (value && std::isfinite(*value)) benchmark[measure] = Json{{"value", *value}};
}

}  // namespace

nlohmann::ordered_json report_to_bmf(const Report& report) {
  Json out = Json::object();
  for (const PointResult& p : report.points) {
    if (p.status != PointStatus::kOk) continue;
    Json benchmark = Json::object();
    if (p.timing && std::isfinite(p.timing->median_s) && std::isfinite(p.timing->min_s) &&
        std::isfinite(p.timing->max_s)) {
      benchmark["latency"] = Json{{"value", p.timing->median_s * kNsPerS},
                                  {"lower_value", p.timing->min_s * kNsPerS},
                                  {"upper_value", p.timing->max_s * kNsPerS}};
    }
    const KernelCounters& total = p.counters.total;
    const std::optional<double> isolated = p.counters.dram_bytes_isolated();
    put_measure(benchmark, "dram-bytes", isolated ? isolated : total.dram_bytes());
    put_measure(benchmark, "flop", total.total_flop());
    put_measure(benchmark, "l2-bytes", total.l2_bytes);
    if (p.roofline) put_measure(benchmark, "fraction-of-roof", p.roofline->fraction_of_roof);
    if (!benchmark.empty()) out[point_key(p).shape_label()] = benchmark;
  }
  return out;
}

}  // namespace rooflinectl
