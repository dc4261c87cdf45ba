#include "profile/full_mode.hpp"

#include <fmt/format.h>

#include "profile/demangle.hpp"

namespace rooflinectl {
namespace {

std::string dims(const std::array<uint32_t, 3>& d) {
  return fmt::format("({},{},{})", d[0], d[1], d[2]);
}

bool same_launch(const LaunchRecord& a, const LaunchRecord& b) {
  return a.mangled_name == b.mangled_name && a.grid == b.grid && a.block == b.block &&
         a.dynamic_shared_bytes == b.dynamic_shared_bytes;
}

}  // namespace

std::vector<FlopMatch> match_flop_run(const std::vector<LaunchRecord>& run1,
                                      const std::vector<LaunchRecord>& run2) {
  std::vector<FlopMatch> matches(run1.size());
  for (size_t i = 0; i < run1.size(); ++i) {
    if (i >= run2.size()) {
      matches[i].null_reason =
          fmt::format("run 2 made only {} selected launch(es) in this process", run2.size());
    } else if (!same_launch(run1[i], run2[i])) {
      const LaunchRecord& other = run2[i];
      matches[i].null_reason =
          fmt::format("run 2 launched {} grid={} block={} smem={} at this index",
                      demangle_kernel_name(other.mangled_name), dims(other.grid), dims(other.block),
                      other.dynamic_shared_bytes);
    } else {
      matches[i].run2_index = i;
    }
  }
  return matches;
}

std::optional<FlopPipe> dominant_flop_pipe(const KernelCounters& total) {
  struct Candidate {
    const char* label;
    std::optional<double> flop;
    std::optional<Pipe> pipe;
    Dtype dtype;
  };
  const Candidate candidates[] = {
      {"bf16 tensor", total.tensor_bf16_flop, Pipe::kTensor, Dtype::kBf16},
      {"fp16 tensor", total.tensor_fp16_flop, Pipe::kTensor, Dtype::kFp16},
      {"tf32 tensor", total.tensor_tf32_flop, std::nullopt, Dtype::kBf16},
      {"fp8 tensor", total.tensor_fp8_flop, std::nullopt, Dtype::kBf16},
      {"fp32 SIMT", total.fp32_flop(), Pipe::kFp32, Dtype::kBf16},
      {"fp16 SIMT", total.fp16_flop(), std::nullopt, Dtype::kBf16},
      {"fp64 SIMT", total.fp64_flop(), std::nullopt, Dtype::kBf16},
  };
  std::optional<FlopPipe> best;
  for (const Candidate& c : candidates) {
    if (!c.flop || !(*c.flop > 0) || (best && !(*c.flop > best->flop))) continue;
    best = FlopPipe{c.label, *c.flop, c.pipe, c.dtype};
  }
  return best;
}

}  // namespace rooflinectl
