// The roofline model (Williams, Waterman & Patterson, CACM 52(4), 2009): attainable performance
// P = min(P_peak, I × BW) with arithmetic intensity I = FLOP / DRAM byte and ridge point
// I* = P_peak / BW; and its hierarchical form with an L2 level as Nsight Compute draws it (its
// Profiling Guide, "Roofline Charts"): the same point also placed at I_l2 = FLOP / L2 byte under
// the L2 bandwidth, the lowest ceiling being the one that binds. Pure host code, no CUDA.
#pragma once

#include <optional>
#include <string>

#include "core/pipe.hpp"
#include "roofline/roof_source.hpp"

namespace rooflinectl {

/// The roof a point is placed under: one compute peak (the pipe's), the DRAM bandwidth and, when
/// known, the L2 bandwidth.
struct Roof {
  Pipe pipe = Pipe::kTensor;
  double peak_flop_per_s = 0;   ///< compute roof of `pipe`, FLOP/s
  double peak_bytes_per_s = 0;  ///< DRAM roof, bytes/s
  std::string source;           ///< where both peaks came from (counters × clock, datasheet, ...)
  RoofSource source_kind = RoofSource::kCounters;  ///< which of the three sources `source` is
  /// L2 roof (lts__t_bytes bandwidth), bytes/s; std::nullopt when no source has one (datasheets
  /// give none), `l2_source` then says why.
  std::optional<double> l2_bytes_per_s;
  /// Where l2_bytes_per_s came from, starting with its source's name ("measured: L2 8.97 TB/s
  /// [...]", "counters: L2 5120 B/cycle x L2 1.755 GHz"); when null, why.
  std::string l2_source;
  /// Which source l2_bytes_per_s is from (it may differ from source_kind: select_point_roof falls
  /// back to another source for L2); std::nullopt when l2_bytes_per_s is.
  std::optional<RoofSource> l2_source_kind;
};

/// Ridge point I* = P_peak / BW in FLOP/byte. Throws a bad-input Error when either is ≤ 0.
double ridge_point_flop_per_byte(const Roof& roof);

/// Attainable FLOP/s at intensity `intensity_flop_per_byte` under `roof`: min(P_peak, I × BW).
double attainable_flop_per_s(const Roof& roof, double intensity_flop_per_byte);

enum class Bound { kMemory, kCompute };
std::string to_string(Bound bound);
Bound parse_bound(const std::string& text);

/// The ceiling that binds a point: the lowest of the compute roof, the DRAM slope at the point's
/// DRAM intensity and the L2 slope at its L2 intensity (when both L2 figures are known).
enum class RoofLevel { kDram, kL2, kCompute };
/// "dram", "l2", "compute".
std::string to_string(RoofLevel level);
/// Parses "dram" | "l2" | "compute"; throws a bad-input Error otherwise.
RoofLevel parse_roof_level(const std::string& text);

/// The L2 bytes a placement is given: the counted lts__t_bytes.sum, or why there is none.
struct L2Bytes {
  std::optional<double> bytes;  ///< bytes; std::nullopt when unknown (then null_reason is set)
  std::string null_reason = "no L2 bytes given to the placement";
};

/// A point placed on the roofline. All rates per second, intensities in FLOP/byte.
struct RooflinePoint {
  Roof roof;
  double flop = 0;        ///< FLOPs the placement used
  double dram_bytes = 0;  ///< DRAM bytes the placement used
  double time_s = 0;      ///< time the placement used (median of the timed pass)
  double arithmetic_intensity_flop_per_byte = 0;
  double achieved_flop_per_s = 0;
  double achieved_bytes_per_s = 0;
  double ridge_flop_per_byte = 0;
  /// min(P_peak, I × BW_dram): what the DRAM level (with the compute roof) allows, FLOP/s.
  double dram_attainable_flop_per_s = 0;
  /// The DRAM bytes moved during the kernel's window (read + in-window write, what Nsight Compute
  /// reports) when `dram_bytes` also holds the write-back of the dirty lines the kernel left in L2
  /// (bytes_basis "dram_isolated"); std::nullopt on every other basis.
  std::optional<double> dram_bytes_in_window;
  /// flop / dram_bytes_in_window, FLOP per in-window DRAM byte; std::nullopt when
  /// dram_bytes_in_window is unset or 0.
  std::optional<double> in_window_arithmetic_intensity_flop_per_byte;
  /// The minimum over the known levels: dram_attainable_flop_per_s, and l2_attainable_flop_per_s
  /// when it is known, FLOP/s. Equal to dram_attainable_flop_per_s when L2 is unknown.
  double attainable_flop_per_s = 0;
  /// achieved / attainable (1.0 = on the roof), so against the lowest known ceiling. Above 1 means
  /// a unit, formula or counter bug (or an under-measured ceiling) and sets `above_roof`, unless
  /// write_back_after_window explains it.
  double fraction_of_roof = 0;
  bool above_roof = false;
  /// fraction_of_roof > 1 with the DRAM slope binding, explained: part of the whole traffic is
  /// write-back that moved after the kernel's window (the isolated launch left dirty lines in L2),
  /// and at its FLOP per in-window DRAM byte the point is under the DRAM slope and under every
  /// other known ceiling. Not an error: the slope bounds the bytes moved in a kernel's own time,
  /// and back to back with other kernels that write-back costs the next one. Never set together
  /// with above_roof.
  bool write_back_after_window = false;
  /// memory when I < I* (DRAM intensity against the DRAM ridge), else compute; L2 plays no part
  /// (binding_level says which level binds).
  Bound bound = Bound::kMemory;
  /// The level whose ceiling is lowest at this point, over the known levels: compute when P_peak
  /// is at or below every memory slope, else the lower of the DRAM and L2 slopes (DRAM on a tie).
  /// Without L2 figures (l2_null_reason set) only DRAM and compute are compared.
  RoofLevel binding_level = RoofLevel::kDram;
  /// L2 bytes the placement used: the counters' total.l2_bytes (lts__t_bytes.sum, every request
  /// L2 served); only from counters, never modelled. std::nullopt for analytic placements and
  /// when not measured.
  std::optional<double> l2_bytes;
  /// flop / l2_bytes, FLOP per L2 byte; std::nullopt when L2 bytes are unknown.
  std::optional<double> l2_arithmetic_intensity_flop_per_byte;
  /// l2_bytes / time_s, bytes/s; std::nullopt when L2 bytes are unknown.
  std::optional<double> achieved_l2_bytes_per_s;
  /// P_peak / BW_l2, FLOP/byte; std::nullopt when the L2 roof is unknown.
  std::optional<double> l2_ridge_flop_per_byte;
  /// min(P_peak, I_l2 × BW_l2), FLOP/s; std::nullopt when the L2 bytes or the L2 roof are unknown.
  std::optional<double> l2_attainable_flop_per_s;
  /// Why l2_attainable_flop_per_s is null: the L2 bytes' reason when they are missing, else the
  /// roof's (roof.l2_source); empty when every L2 figure is known.
  std::string l2_null_reason;
  std::string basis;  ///< "counters" (measured FLOPs and bytes) or "analytic"
  /// Which DRAM bytes `dram_bytes` is (result/placement_inputs.hpp): "dram_isolated",
  /// "dram_in_window", "analytic_implemented" or "analytic_min"; empty when the caller did not
  /// say.
  std::string bytes_basis;
};

/// Places one measurement under `roof`, and under its L2 roof when `l2.bytes` and
/// roof.l2_bytes_per_s are both known. `dram_bytes_in_window`, when set, is the part of
/// `dram_bytes` moved during the kernel's window (RooflinePoint::dram_bytes_in_window): the
/// intensity and the fraction of roof stay on `dram_bytes`; the in-window bytes only tell a point
/// above the DRAM slope by its deferred write-back (write_back_after_window) from one above its
/// roof. Preconditions (bad-input Error otherwise): flop > 0, dram_bytes > 0, time_s > 0, roof
/// peaks > 0, l2.bytes and roof.l2_bytes_per_s finite and > 0 when set, and 0 ≤
/// dram_bytes_in_window ≤ dram_bytes when set.
RooflinePoint place_on_roofline(const Roof& roof, double flop, double dram_bytes, double time_s,
                                const std::string& basis, const L2Bytes& l2 = L2Bytes{},
                                std::optional<double> dram_bytes_in_window = std::nullopt);

/// The in-window DRAM throughput of `point` as a fraction of its DRAM roof
/// (dram_bytes_in_window / time_s / peak_bytes_per_s, Nsight Compute's DRAM throughput);
/// std::nullopt when dram_bytes_in_window is unset.
std::optional<double> in_window_dram_fraction(const RooflinePoint& point);

}  // namespace rooflinectl
