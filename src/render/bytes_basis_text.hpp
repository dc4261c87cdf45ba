// Which DRAM bytes a report's points were placed with, in words, for every human-facing output
// (table footer, Markdown notes, chart subtitle). Pure host code.
#pragma once

#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// "DRAM bytes: read + in-window write + deferred write-back (the isolated launch's traffic;
/// Nsight Compute shows read + in-window write), 42 points", with one part per bytes_basis that
/// occurs among the placed points, in a fixed order; empty when no point is placed.
std::string bytes_basis_summary(const Report& report);

/// What "~" after a roof percentage means (RooflinePoint::write_back_after_window), for the
/// footnotes of every table that marks it; without the mark and the closing punctuation.
inline constexpr const char* kWriteBackAfterWindowNote =
    "above the DRAM slope at the whole-traffic intensity by write-back that moved after the "
    "kernel's window (under every ceiling on its in-window DRAM bytes): not an error";

/// The same for a chart subtitle: ", DRAM incl. write-back" when every placed point's bytes
/// include the deferred write-back, ", DRAM in-window only" when none does, ", DRAM bytes of
/// mixed bases" otherwise; empty when no point says (reports written before the basis existed).
std::string bytes_basis_short(const Report& report);

}  // namespace rooflinectl
