#include "compare/compare_power.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "compare/significance.hpp"
#include "core/error.hpp"

namespace rooflinectl {
namespace {

// No sweep takes more samples per point than this; beyond it the search stops.
constexpr size_t kSearchLimit = 1'000'000;

void check_search_arguments(size_t family_size, double alpha) {
  if (family_size == 0) throw bad_input("time gate power: the family of tested points is empty");
  if (!(alpha > 0 && alpha < 1)) {
    throw bad_input(fmt::format("time gate power: alpha {} is not in (0, 1)", alpha));
  }
}

}  // namespace

double time_gate_floor_p_value(size_t n_base, size_t n_new) {
  if (n_base == 0 || n_new == 0) return 1;
  const double m = static_cast<double>(n_base);
  const double n = static_cast<double>(n_new);
  // The approximation of mann_whitney_u at U = 0, without the tie term (which only lowers it).
  const double z = std::max(0.0, m * n / 2 - 0.5) / std::sqrt(m * n * (m + n + 1) / 12);
  const double approximate = std::erfc(z / std::sqrt(2.0));
  return std::max(mann_whitney_min_p_value(n_base, n_new), approximate);
}

double min_adjusted_p_value(size_t family_size, size_t n_base, size_t n_new) {
  return std::min(1.0, static_cast<double>(family_size) * time_gate_floor_p_value(n_base, n_new));
}

std::optional<size_t> new_samples_needed(size_t family_size, size_t n_base, double alpha) {
  check_search_arguments(family_size, alpha);
  if (n_base == 0) throw bad_input("time gate power: the base holds no samples");
  // The floor falls as n_new grows: a doubling search, then bisection.
  size_t high = 1;
  while (min_adjusted_p_value(family_size, n_base, high) >= alpha) {
    if (high >= kSearchLimit) return std::nullopt;
    high *= 2;
  }
  size_t low = high / 2;  // fails (or is 0)
  while (high - low > 1) {
    const size_t mid = low + (high - low) / 2;
    (min_adjusted_p_value(family_size, n_base, mid) < alpha ? high : low) = mid;
  }
  return high;
}

size_t equal_samples_needed(size_t family_size, double alpha) {
  check_search_arguments(family_size, alpha);
  size_t n = 1;
  while (min_adjusted_p_value(family_size, n, n) >= alpha && n < kSearchLimit) ++n;
  return n;
}

void check_time_gate_power(const std::vector<FamilyMember>& family, const std::string& flag) {
  if (family.empty()) return;
  const size_t m = family.size();
  const auto weakest = std::max_element(
      family.begin(), family.end(), [m](const FamilyMember& a, const FamilyMember& b) {
        return min_adjusted_p_value(m, a.base_samples, a.new_samples) <
               min_adjusted_p_value(m, b.base_samples, b.new_samples);
      });
  const double floor_p = min_adjusted_p_value(m, weakest->base_samples, weakest->new_samples);
  if (floor_p < kMannWhitneyAlpha) return;
  const size_t both = equal_samples_needed(m, kMannWhitneyAlpha);
  const std::optional<size_t> new_only =
      new_samples_needed(m, weakest->base_samples, kMannWhitneyAlpha);
  const std::string against_base =
      new_only ? fmt::format("{} {} for the new sweep against this base", flag, *new_only)
               : "no number of new samples is enough against this base";
  throw bad_input(fmt::format(
      "the time gate cannot flag a regression: with {} base and {} new samples ({}) and {} "
      "point{} tested together, the smallest p after the Holm adjustment is {} x {:.2g} = {:.2g}, "
      "not below {}; use {} {} or more for both sweeps ({})",
      weakest->base_samples, weakest->new_samples, weakest->label, m, m == 1 ? "" : "s", m,
      time_gate_floor_p_value(weakest->base_samples, weakest->new_samples), floor_p,
      kMannWhitneyAlpha, flag, both, against_base));
}

std::vector<size_t> powered_family(const std::vector<FamilyMember>& candidates) {
  std::vector<size_t> order(candidates.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto floor_of = [&](size_t i) {
    return time_gate_floor_p_value(candidates[i].base_samples, candidates[i].new_samples);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return floor_of(a) < floor_of(b); });
  size_t size = 0;
  while (size < order.size() &&
         static_cast<double>(size + 1) * floor_of(order[size]) < kMannWhitneyAlpha) {
    ++size;
  }
  order.resize(size);
  std::sort(order.begin(), order.end());
  return order;
}

std::vector<FamilyMember> planned_time_gate_family(const Report& base,
                                                   const std::vector<PointKey>& planned,
                                                   size_t repetitions) {
  std::vector<FamilyMember> family;
  for (const PointResult& p : base.points) {
    if (p.status != PointStatus::kOk || !p.timing) continue;
    const PointKey key = point_key(p);
    const bool is_planned = std::any_of(planned.begin(), planned.end(),
                                        [&](const PointKey& k) { return k.same_point(key); });
    if (!is_planned) continue;
    const auto finite =
        static_cast<size_t>(std::count_if(p.timing->samples_s.begin(), p.timing->samples_s.end(),
                                          [](double v) { return std::isfinite(v); }));
    if (finite > 0) family.push_back({key.label(), finite, repetitions});
  }
  return family;
}

}  // namespace rooflinectl
