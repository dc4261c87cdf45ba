#include "render/reconcile_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "render/point_label.hpp"

namespace rooflinectl {
namespace {

std::string band_text(const ReconcileCheck& c) {
  if (c.band_low && c.band_high) return fmt::format("{:g}..{:g}", *c.band_low, *c.band_high);
  if (c.band_low) return fmt::format(">= {:g}", *c.band_low);
  if (c.band_high) return fmt::format("<= {:g}", *c.band_high);
  return "none";
}

}  // namespace

std::string format_reconciliation_flags(const Report& report) {
  // The flagged checks of one operator on one quantity, on one side of the band: the
  // explanation is the same at every L up to its numbers, so it is printed once, for the first.
  struct Group {
    const PointResult* first_point;
    const ReconcileCheck* first_check;
    bool below;
    std::vector<std::string> points;  ///< "L=512 0.553", "L=4096 H_kv=8 kv=fp8_e4m3 1.048"
  };
  size_t checks = 0;
  size_t flagged = 0;
  std::vector<Group> groups;
  bool any = false;
  for (const auto& p : report.points) {
    if (!p.reconciliation) continue;
    any = true;
    for (const auto& c : p.reconciliation->checks) {
      ++checks;
      if (!c.flagged) continue;
      ++flagged;
      const bool below = c.band_low && c.ratio < *c.band_low;
      auto group = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
        return g.first_point->op == p.op && g.first_check->quantity == c.quantity &&
               g.first_check->reference == c.reference && g.below == below;
      });
      if (group == groups.end()) group = groups.insert(groups.end(), Group{&p, &c, below, {}});
      // Named as the table names the point (its variants and swept axes): points of one L
      // differ by them.
      group->points.push_back(fmt::format("L={}{} {:.3f}", p.shape.seq_len,
                                          point_variant_label(report.config.axes, p.op, p.shape),
                                          c.ratio));
    }
  }
  if (!any) return "";
  std::string body;
  for (const Group& g : groups) {
    const ReconcileCheck& c = *g.first_check;
    body += fmt::format(
        "  {}: {} / {} (band {}) at {} point{}: {}\n    at L={}{}: {}\n", g.first_point->op,
        c.quantity, c.reference, band_text(c), g.points.size(), g.points.size() == 1 ? "" : "s",
        fmt::join(g.points, ", "), g.first_point->shape.seq_len,
        point_variant_label(report.config.axes, g.first_point->op, g.first_point->shape),
        c.explanation);
  }
  return fmt::format("reconciliation (analytic vs counted): {} of {} checks flagged\n{}", flagged,
                     checks, body);
}

}  // namespace rooflinectl
