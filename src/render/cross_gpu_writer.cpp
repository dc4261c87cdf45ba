#include "render/cross_gpu_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <optional>

#include "render/aligned_columns.hpp"
#include "render/bytes_basis_text.hpp"
#include "render/value_format.hpp"
#include "result/point_key.hpp"

namespace rooflinectl {
namespace {

// The point key without the kernel version: operator and shape ("gelu L=4096 B=1 ...").
std::string row_key(const PointResult& point) { return point_key(point).shape_label(); }

std::string roof_source_text(const Report& report) {
  return report.peaks ? to_string(report.peaks->used) : std::string("counter-derived");
}

}  // namespace

const DeviceRecord& point_device(const Report& report, const PointResult& point) {
  if (point.source && *point.source < report.sources.size()) {
    return report.sources[*point.source].device;
  }
  return report.device;
}

std::vector<std::string> cross_gpu_labels(const std::vector<CrossGpuReport>& reports) {
  std::vector<std::string> labels;
  std::map<std::string, int> uses;
  for (const CrossGpuReport& r : reports) {
    const Report& report = *r.report;
    labels.push_back(report.points.empty() ? report.device.name
                                           : point_device(report, report.points.front()).name);
    ++uses[labels.back()];
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    if (uses[labels[i]] > 1) labels[i] += " (" + reports[i].file + ")";
  }
  return labels;
}

std::string format_cross_gpu_report(const std::vector<CrossGpuReport>& reports, bool markdown) {
  const std::vector<std::string> labels = cross_gpu_labels(reports);
  // Row order: first appearance over the reports in order; cells: (report, point) lookups.
  std::vector<std::string> keys;
  std::vector<std::map<std::string, const PointResult*>> by_key(reports.size());
  for (size_t i = 0; i < reports.size(); ++i) {
    for (const PointResult& p : reports[i].report->points) {
      const std::string key = row_key(p);
      if (by_key[i].emplace(key, &p).second) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; ++j) seen = by_key[j].count(key) > 0;
        if (!seen) keys.push_back(key);
      }
    }
  }
  std::vector<std::string> header = {"operator / shape"};
  std::vector<bool> right = {false};
  for (size_t i = 0; i < reports.size(); ++i) {
    const std::string tag = fmt::format("[{}]", i + 1);
    header.insert(header.end(), {tag + " time", tag + " bound", tag + " % of roof"});
    right.insert(right.end(), {true, false, true});
    if (i > 0) {
      header.push_back(fmt::format("[{}]/[1] time", i + 1));
      right.push_back(true);
    }
  }
  std::vector<std::vector<std::string>> rows = {header};
  bool any_above_roof = false;
  bool any_write_back = false;
  for (const std::string& key : keys) {
    std::vector<std::string> row = {key};
    std::optional<double> first_time;
    for (size_t i = 0; i < reports.size(); ++i) {
      const auto found = by_key[i].find(key);
      const PointResult* p = found == by_key[i].end() ? nullptr : found->second;
      const bool ok = p != nullptr && p->status == PointStatus::kOk && p->timing;
      if (!ok) {
        row.insert(row.end(),
                   {p == nullptr ? "- (absent)" : "- (" + to_string(p->status) + ")", "-", "-"});
      } else {
        row.push_back(format_time_s(p->timing->median_s));
        row.push_back(p->roofline ? fmt::format("{} ({})", to_string(p->roofline->bound),
                                                to_string(p->roofline->binding_level))
                                  : "not placed");
        // The single-report table's marks: "!" above the roof (an error), "~" above the DRAM
        // slope by write-back that drained after the kernel (explained).
        if (p->roofline) {
          const RooflinePoint& r = *p->roofline;
          any_above_roof = any_above_roof || r.above_roof;
          any_write_back = any_write_back || r.write_back_after_window;
          row.push_back(format_percent(r.fraction_of_roof) + (r.above_roof ? "!" : "") +
                        (r.write_back_after_window ? "~" : ""));
        } else {
          row.push_back("-");
        }
      }
      const std::optional<double> time =
          ok ? std::optional<double>(p->timing->median_s) : std::nullopt;
      if (i == 0) {
        first_time = time;
      } else {
        row.push_back(first_time && time && *first_time > 0
                          ? fmt::format("{:.2f}×", *time / *first_time)
                          : "-");
      }
    }
    rows.push_back(row);
  }

  std::string out;
  for (size_t i = 0; i < reports.size(); ++i) {
    const Report& report = *reports[i].report;
    out += fmt::format("{}[{}] {}: {}, {} roofs, rooflinectl {} ({}), {} points\n",
                       markdown ? "- " : "", i + 1, reports[i].file, labels[i],
                       roof_source_text(report), report.tool_version,
                       report.git_revision.empty() ? "revision unknown" : report.git_revision,
                       report.points.size());
  }
  out += "\n";
  if (markdown) {
    out += fmt::format("| {} |\n|", fmt::join(rows.front(), " | "));
    for (const bool r : right) out += r ? " ---: |" : " --- |";
    out += "\n";
    for (size_t r = 1; r < rows.size(); ++r)
      out += fmt::format("| {} |\n", fmt::join(rows[r], " | "));
  } else {
    out += format_aligned_rows(rows, right);
  }
  out +=
      "\nEach point is placed on its own GPU's roofs; a time ratio below 1 is faster "
      "than [1].\n";
  if (any_above_roof) {
    out += "! above the roof: achieved exceeds attainable, a unit, formula or counter bug\n";
  }
  if (any_write_back) {
    out += fmt::format("~ {}\n", kWriteBackAfterWindowNote);
  }
  return out;
}

}  // namespace rooflinectl
