// `rooflinectl report A.json B.json ...`: the same points measured on different GPUs, side by side
// (the comparison people make when choosing a GPU). Pure; reads report records only.
#pragma once

#include <string>
#include <vector>

#include "result/report.hpp"

namespace rooflinectl {

/// One report of the side-by-side view and the name it is shown under.
struct CrossGpuReport {
  std::string file;
  const Report* report = nullptr;
};

/// The GPU a point of `report` was measured on: its source's device in a merged report
/// (Report::sources), else the report's device.
const DeviceRecord& point_device(const Report& report, const PointResult& point);

/// Column label of each report: its GPU's name (the device of its first point), with the file
/// name added when two reports would otherwise share a label.
std::vector<std::string> cross_gpu_labels(const std::vector<CrossGpuReport>& reports);

/// The side-by-side table: one row per point key (operator, shape; the kernel version is not part
/// of the key, as in `compare`) in the order of the first report that has it; per report the
/// median time, the bound and binding level and the fraction of roof, each placed against that
/// report's own GPU and roofs; and each later report's time over the first's (`×` column; below 1:
/// faster than the first). A point a report lacks, or that is not ok there, shows "-" with its
/// status. `markdown`: a GitHub table, else aligned console columns. Above the table, one line per
/// report: file, GPU, roof source, revision. Never throws for well-formed reports.
std::string format_cross_gpu_report(const std::vector<CrossGpuReport>& reports, bool markdown);

}  // namespace rooflinectl
