#include "render/reconcile_writer.hpp"

#include <fmt/format.h>

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
  size_t checks = 0;
  size_t flagged = 0;
  std::string body;
  bool any = false;
  for (const auto& p : report.points) {
    if (!p.reconciliation) continue;
    any = true;
    for (const auto& c : p.reconciliation->checks) {
      ++checks;
      if (!c.flagged) continue;
      ++flagged;
      body += fmt::format("  {} L={}: {} / {} = {:.3f} (band {})\n    {}\n", p.op, p.shape.seq_len,
                          c.quantity, c.reference, c.ratio, band_text(c), c.explanation);
    }
  }
  if (!any) return "";
  return fmt::format("reconciliation (analytic vs counted): {} of {} checks flagged\n{}", flagged,
                     checks, body);
}

}  // namespace rooflinectl
