#include "model/layer_conclusion.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace rooflinectl {
namespace {

std::string percent(double fraction) { return fmt::format("{:.1f}%", 100.0 * fraction); }

double op_time(const LayerPrediction& p, const std::vector<std::string>& names) {
  double s = 0;
  for (const auto& o : p.ops) {
    if (std::find(names.begin(), names.end(), o.op.name) != names.end()) s += o.time_lower_bound_s;
  }
  return s;
}

double attention_share(const LayerPrediction& p) {
  return op_time(p, {"attention"}) / p.layer_time_s;
}

double ffn_gemm_share(const LayerPrediction& p) {
  return op_time(p, {"ffn_gate", "ffn_up", "ffn_down"}) / p.layer_time_s;
}

// Points by batch (ascending), each list by length (ascending).
std::map<int64_t, std::vector<const LayerPrediction*>> by_batch(
    const std::vector<LayerPrediction>& points) {
  std::map<int64_t, std::vector<const LayerPrediction*>> out;
  for (const auto& p : points) out[p.point.batch].push_back(&p);
  for (auto& [batch, list] : out) {
    std::sort(list.begin(), list.end(),
              [](const auto* a, const auto* b) { return a->point.seq_len < b->point.seq_len; });
  }
  return out;
}

// The longest time of any operator but attention.
double largest_other_share(const LayerPrediction& p) {
  double share = 0;
  for (const auto& o : p.ops) {
    if (o.op.name != "attention") share = std::max(share, o.share_of_layer);
  }
  return share;
}

// The first point of `list` (ascending L) where `over` holds; nullptr when none does.
template <class Pred>
const LayerPrediction* first_where(const std::vector<const LayerPrediction*>& list, Pred over) {
  const auto it = std::find_if(list.begin(), list.end(), over);
  return it == list.end() ? nullptr : *it;
}

std::string prefill_takeover(int64_t batch, const std::vector<const LayerPrediction*>& list) {
  const LayerPrediction& last = *list.back();
  // Called for a point after the first: the length before it.
  const auto previous_l = [&list](const LayerPrediction* p) {
    const auto it = std::find(list.begin(), list.end(), p);
    return fmt::format("L = {}", (*(it - 1))->point.seq_len);
  };
  std::string out = fmt::format("prefill, B = {}: ", batch);
  const LayerPrediction* largest = first_where(
      list, [](const LayerPrediction* p) { return attention_share(*p) > largest_other_share(*p); });
  if (largest == nullptr) {
    out += fmt::format("attention stays below the largest GEMM up to L = {} ({} vs {})",
                       last.point.seq_len, percent(attention_share(last)),
                       percent(largest_other_share(last)));
  } else if (largest == list.front()) {
    out += fmt::format(
        "attention is the largest operator from the smallest L on (at L = {}: {} of the layer "
        "time against {} for the largest other)",
        largest->point.seq_len, percent(attention_share(*largest)),
        percent(largest_other_share(*largest)));
  } else {
    out += fmt::format(
        "beyond {} attention takes over from each FFN GEMM as the largest operator (at L = {}: "
        "{} of the layer time against {})",
        previous_l(largest), largest->point.seq_len, percent(attention_share(*largest)),
        percent(largest_other_share(*largest)));
  }
  const LayerPrediction* ffn = first_where(
      list, [](const LayerPrediction* p) { return attention_share(*p) > ffn_gemm_share(*p); });
  if (ffn == nullptr) {
    out += fmt::format("; the three FFN GEMMs together stay larger up to L = {} ({} vs {})",
                       last.point.seq_len, percent(ffn_gemm_share(last)),
                       percent(attention_share(last)));
  } else if (ffn == list.front()) {
    out += fmt::format(
        "; from the smallest L on it takes more time than the FFN GEMMs together (at L = {}: {} "
        "vs {})",
        ffn->point.seq_len, percent(attention_share(*ffn)), percent(ffn_gemm_share(*ffn)));
  } else {
    out += fmt::format(
        "; beyond {} it takes more time than the FFN GEMMs together (at L = {}: {} vs {})",
        previous_l(ffn), ffn->point.seq_len, percent(attention_share(*ffn)),
        percent(ffn_gemm_share(*ffn)));
  }
  return out;
}

std::string prefill_bound(int64_t batch, const std::vector<const LayerPrediction*>& list) {
  const LayerPrediction& first = *list.front();
  const LayerPrediction& last = *list.back();
  std::vector<std::string> memory_bound;
  for (const auto& o : first.ops) {
    if (o.bound == Bound::kMemory) memory_bound.push_back(o.op.name);
  }
  // One length: one share ("at L = 4096"), not the same clause twice.
  const std::string shares =
      list.size() == 1 ? fmt::format("{} of the layer time at L = {}",
                                     percent(first.compute_bound_time_share), first.point.seq_len)
                       : fmt::format("{} of the layer time at L = {} and {} at L = {}",
                                     percent(first.compute_bound_time_share), first.point.seq_len,
                                     percent(last.compute_bound_time_share), last.point.seq_len);
  return fmt::format("prefill, B = {}: compute-bound operators take {}; memory-bound at L = {}: {}",
                     batch, shares, first.point.seq_len,
                     memory_bound.empty() ? std::string("none")
                                          : fmt::format("{}", fmt::join(memory_bound, ", ")));
}

std::vector<std::string> decode_conclusion(const std::vector<LayerPrediction>& points) {
  const auto groups = by_batch(points);
  std::vector<std::string> out;
  const auto most_compute = std::max_element(
      points.begin(), points.end(), [](const LayerPrediction& a, const LayerPrediction& b) {
        return a.compute_bound_time_share < b.compute_bound_time_share;
      });
  const LayerPrediction& mc = *most_compute;
  if (mc.compute_bound_time_share == 0) {
    out.push_back(
        "decode: every operator is memory-bound at every point: the time is reading weights and "
        "the KV cache");
  } else {
    out.push_back(fmt::format(
        "decode: memory-bound operators take at least {} of the layer time at every point (the "
        "least at B = {}, context {})",
        percent(1.0 - mc.compute_bound_time_share), mc.point.batch, mc.point.seq_len));
  }

  const LayerPrediction& small = *groups.begin()->second.front();
  out.push_back(
      fmt::format("decode, B = {}, context {}: {} of the layer time reads weights, {} the KV cache",
                  small.point.batch, small.point.seq_len, percent(small.weight_time_share),
                  percent(small.kv_cache_time_share)));

  const auto& largest_batch = groups.rbegin()->second;
  const auto at_32k =
      std::find_if(largest_batch.begin(), largest_batch.end(),
                   [](const LayerPrediction* p) { return p->point.seq_len == 32768; });
  const LayerPrediction& big = at_32k != largest_batch.end() ? **at_32k : *largest_batch.back();
  const double bytes = big.weight_bytes + big.kv_cache_bytes + big.activation_bytes;
  // A share of one layer's bytes holds at any point, but a point the whole model cannot hold
  // says so: its times are for a GPU that could.
  out.push_back(fmt::format(
      "decode, B = {}, context {}: the KV cache is {} of the bytes a layer moves, the weights {}{}",
      big.point.batch, big.point.seq_len, percent(big.kv_cache_bytes / bytes),
      percent(big.weight_bytes / bytes),
      big.peak_memory.fits
          ? ""
          : fmt::format(" (the whole model does not fit the GPU there: {:.3g} GB at its peak)",
                        big.peak_memory.total_bytes / 1e9)));

  for (const auto& [batch, list] : groups) {
    const auto over = std::find_if(list.begin(), list.end(), [](const LayerPrediction* p) {
      return p->kv_cache_bytes > p->weight_bytes;
    });
    if (over == list.end()) {
      out.push_back(
          fmt::format("decode, B = {}: the weights outweigh the KV cache at every context up to {}",
                      batch, list.back()->point.seq_len));
    } else {
      out.push_back(fmt::format(
          "decode, B = {}: the KV cache outweighs the weights from context {} ({} of the layer "
          "time reads it there)",
          batch, (*over)->point.seq_len, percent((*over)->kv_cache_time_share)));
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> layer_conclusion(const std::vector<LayerPrediction>& points) {
  if (points.empty()) return {};
  if (points.front().point.phase == LayerPhase::kDecode) return decode_conclusion(points);
  std::vector<std::string> out;
  for (const auto& [batch, list] : by_batch(points)) {
    out.push_back(prefill_takeover(batch, list));
    out.push_back(prefill_bound(batch, list));
  }
  return out;
}

}  // namespace rooflinectl
