#include "core/shard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "core/error.hpp"
#include "core/shape.hpp"

namespace rooflinectl {
namespace {

// A whole decimal number, nothing else; nullopt otherwise.
std::optional<int64_t> whole_number(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

int64_t env_number(const EnvLookup& env, const std::string& name) {
  const std::optional<std::string> text = env(name);
  if (!text) {
    throw bad_input(fmt::format("invalid --shard auto: {} is not set", name));
  }
  const std::optional<int64_t> value = whole_number(*text);
  if (!value) {
    throw bad_input(
        fmt::format("invalid --shard auto: {}='{}' (allowed: a whole number)", name, *text));
  }
  return *value;
}

ShardSpec checked_shard(int64_t index, int64_t count, const std::string& what) {
  if (count < 1 || count > kMaxShardCount || index < 1 || index > count) {
    throw bad_input(fmt::format(
        "invalid --shard auto: {} gives shard {}/{} (allowed: 1 <= index <= count <= {})", what,
        index, count, kMaxShardCount));
  }
  return ShardSpec{static_cast<int>(index), static_cast<int>(count), {}};
}

}  // namespace

std::string ShardSpec::text() const { return fmt::format("{}/{}", index, count); }

ShardSpec parse_shard_spec(std::string_view text, std::string_view flag) {
  const size_t slash = text.find('/');
  const auto refuse = [&] {
    return bad_input(fmt::format(
        "invalid {} '{}': allowed i/n with whole numbers 1 <= i <= n <= {}, e.g. 2/4, or auto",
        flag, text, kMaxShardCount));
  };
  if (slash == std::string_view::npos) throw refuse();
  const std::optional<int64_t> index = whole_number(text.substr(0, slash));
  const std::optional<int64_t> count = whole_number(text.substr(slash + 1));
  if (!index || !count || *count < 1 || *count > kMaxShardCount || *index < 1 || *index > *count) {
    throw refuse();
  }
  return ShardSpec{static_cast<int>(*index), static_cast<int>(*count), {}};
}

std::vector<size_t> parse_plan_indices(std::string_view text, size_t plan_size,
                                       std::string_view flag) {
  std::vector<size_t> indices;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const std::optional<int64_t> value = whole_number(item);
    if (!value || *value < 1 || static_cast<uint64_t>(*value) > plan_size) {
      throw bad_input(fmt::format("invalid {} item '{}' (allowed: plan positions 1..{})", flag,
                                  item, plan_size));
    }
    indices.push_back(static_cast<size_t>(*value));
    start = comma + 1;
  }
  std::sort(indices.begin(), indices.end());
  const auto repeated = std::adjacent_find(indices.begin(), indices.end());
  if (repeated != indices.end()) {
    throw bad_input(
        fmt::format("invalid {}: plan position {} is listed more than once", flag, *repeated));
  }
  return indices;
}

ShardSpec shard_from_environment(const EnvLookup& env) {
  if (env("SLURM_ARRAY_TASK_ID")) {
    const int64_t id = env_number(env, "SLURM_ARRAY_TASK_ID");
    const int64_t min = env_number(env, "SLURM_ARRAY_TASK_MIN");
    const int64_t count = env_number(env, "SLURM_ARRAY_TASK_COUNT");
    if (env("SLURM_ARRAY_TASK_STEP")) {
      const int64_t step = env_number(env, "SLURM_ARRAY_TASK_STEP");
      if (step != 1) {
        throw bad_input(fmt::format(
            "invalid --shard auto: SLURM_ARRAY_TASK_STEP={} (allowed: 1; a stepped array such "
            "as --array=0-6:2 leaves gaps between shard indices)",
            step));
      }
    }
    return checked_shard(id - min + 1, count,
                         fmt::format("SLURM_ARRAY_TASK_ID={} with SLURM_ARRAY_TASK_MIN={} and "
                                     "SLURM_ARRAY_TASK_COUNT={}",
                                     id, min, count));
  }
  if (env("JOB_COMPLETION_INDEX")) {
    const int64_t index = env_number(env, "JOB_COMPLETION_INDEX");
    const int64_t count = env_number(env, "RFL_SHARD_COUNT");
    return checked_shard(
        index + 1, count,
        fmt::format("JOB_COMPLETION_INDEX={} with RFL_SHARD_COUNT={}", index, count));
  }
  throw bad_input(
      "invalid --shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor "
      "JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; pass --shard i/n instead");
}

std::string shard_point_key(const std::string& op, const Shape& shape) {
  // A paged KV cache adds "|kv=paged/16", an FP8 one "|kv=fp8_e4m3", FP8 GEMM inputs
  // "|in=fp8_e4m3", explicit GEMM dims
  // "|gemm=N=6144 K=4096", explicit layer widths "|hidden=4096 ffn=14336"; a contiguous auto point
  // at the default dims and widths has the key shards had before these existed, so its shard does
  // not move.
  const std::string layout =
      shape.kv_layout == KvLayout::kPaged ? "|kv=" + kv_layout_label(shape) : std::string();
  const std::string kv_dtype =
      shape.kv_dtype == KvDtype::kAuto ? std::string() : "|" + kv_dtype_label(shape);
  const std::string gemm_dtype =
      shape.gemm_dtype == GemmDtype::kAuto ? std::string() : "|" + gemm_dtype_label(shape);
  const std::string gemm = gemm_dims_label(shape);
  const std::string widths = layer_widths_label(shape);
  return fmt::format("{}|L={}|B={}|H={}|Hkv={}|d={}|{}|{}|{}{}{}{}{}{}", op, shape.seq_len,
                     shape.batch, shape.heads, shape.kv_heads, shape.head_dim,
                     to_string(shape.dtype), shape.causal ? 1 : 0, to_string(shape.gelu_form),
                     layout, kv_dtype, gemm_dtype, gemm.empty() ? "" : "|gemm=" + gemm,
                     widths.empty() ? "" : "|" + widths);
}

uint64_t fnv1a_64(std::string_view text) {
  uint64_t hash = 14695981039346656037ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

int shard_of_point(const std::string& op, const Shape& shape, int count) {
  return 1 + static_cast<int>(fnv1a_64(shard_point_key(op, shape)) % static_cast<uint64_t>(count));
}

std::vector<std::vector<size_t>> balance_plan_positions(const std::vector<double>& costs,
                                                        int workers) {
  std::vector<size_t> order(costs.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return costs[a] > costs[b]; });
  std::vector<std::vector<size_t>> assigned(static_cast<size_t>(std::max(workers, 1)));
  std::vector<double> load(assigned.size(), 0.0);
  for (const size_t k : order) {
    const size_t least =
        static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    assigned[least].push_back(k + 1);
    load[least] += costs[k];
  }
  for (auto& positions : assigned) std::sort(positions.begin(), positions.end());
  return assigned;
}

}  // namespace rooflinectl
