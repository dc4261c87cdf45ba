// Microbenchmarks of `rooflinectl peaks`, in run order (PeakRunResult::benchmarks):
//   1. DRAM, over two buffers of max(1 GiB, 16 × L2) so that L2 holds a sliver, L2 flushed before
//      every launch: copy and write-only as a full grid of one 16-byte vector per thread with
//      streaming hints; read-only grid-stride with four 16-byte loads in flight per thread; and
//      cudaMemcpyAsync device to device, the driver's own copy. The DRAM roof is the best of them.
//   2. L2 read: one block per SM, each reading its own contiguous chunk of a buffer of about L2/2
//      many times, 8 loads cached in L2 only in flight per thread.
//   3. fp32 FFMA: eight independent FMA chains per thread, every SM full of threads.
//   4. mma.sync m16n8k16 (bf16, fp16 → fp32): operands in registers, eight independent
//      accumulators per warp (the HMMA path that FlashAttention-2-style kernels use).
//   5. wgmma m64n256k16 bf16 and fp16, and m64n256k32 e4m3 (peak_wgmma.cu, sm_90a only).
// The FLOP or byte accounting of each kernel is written next to it; the measurements that chose
// these access patterns are in docs/perf-notes.md ("Copy-kernel exploration", "L2 read ceiling").
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <utility>

#include "core/error.hpp"
#include "cupti/metrics.hpp"
#include "cupti/profiler_session.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/stream.hpp"
#include "measure/l2_flush.hpp"
#include "measure/timing.hpp"
#include "peaks/bench/peak_benchmarks.hpp"
#include "peaks/bench/peak_wgmma.hpp"
#include "peaks/peak_sources.hpp"

namespace rooflinectl {
namespace {

constexpr int kLoadsInFlight = 4;
constexpr int kFullGridThreads = 256;  ///< copy and write kernels: one thread per 16-byte vector
constexpr int kWarpSize = 32;
constexpr double kMmaFlop = 2.0 * 16 * 8 * 16;  // one mma.sync m16n8k16: 2·M·N·K
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

// A counter-pass metric beyond the sweep's own list (cupti/metrics.hpp); name checked against the
// GH100 metric list (gh100-base-metrics.txt: sm__ops_path_tensor_src_fp16 exists).
constexpr const char* kMetricTensorFp16PeakPerCycle =
    "sm__ops_path_tensor_src_fp16.sum.peak_sustained";

__device__ uint32_t g_stream_sink;
__device__ float g_compute_sink;

// ---- 1. DRAM and 2. L2 --------------------------------------------------------------------

// Bytes = 2 × count × 16 (each element read once and written once). One 16-byte vector per
// thread over a full grid (no grid-stride loop), with streaming (evict-first) hints: on the H200
// this matched cudaMemcpy (4.26 vs 4.25 TB/s at 2 GiB) while every grid-stride variant tried
// (1–16 blocks per SM, 1–8 vectors in flight) stayed at or below 4.0 TB/s (docs/perf-notes.md,
// "copy-kernel exploration", 2026-11-29).
__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, int64_t count) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) __stcs(dst + i, __ldcs(src + i));
}

__device__ __forceinline__ uint32_t xor_words(const uint4& v) { return v.x ^ v.y ^ v.z ^ v.w; }

// L2-only load that the compiler may not merge or hoist: the L2 benchmark reads the same
// addresses on every pass, and an ordinary load could be hoisted out of the pass loop.
__device__ __forceinline__ uint4 load_l2_volatile(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// Bytes = passes × count × 16 (every element read once per pass). With passes = 1 over a DRAM
// buffer this is the read-only DRAM benchmark; with many passes over a buffer inside L2, the L2
// one. The buffer is zero-filled, so the XOR is 0 and never equals `key` (1): the sink store
// never runs, yet the loads cannot be dropped because their result decides whether it does.
__global__ void read_kernel(const uint4* __restrict__ data, int64_t count, int passes,
                            uint32_t key) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint32_t acc = 0;
  for (int pass = 0; pass < passes; ++pass) {
    int64_t i = first;
    for (; i + (kLoadsInFlight - 1) * stride < count; i += kLoadsInFlight * stride) {
      uint4 v[kLoadsInFlight];
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) v[u] = load_l2_volatile(data + i + u * stride);
#pragma unroll
      for (int u = 0; u < kLoadsInFlight; ++u) acc ^= xor_words(v[u]);
    }
    for (; i < count; i += stride) acc ^= xor_words(load_l2_volatile(data + i));
  }
  if (acc == key) g_stream_sink = acc;
}

// Bytes = gridDim.x × chunk_vectors × 16 × passes. Block b reads vectors [b·chunk_vectors,
// (b+1)·chunk_vectors), chunk_vectors a multiple of blockDim.x × kPeakL2LoadsInFlight, `passes`
// times. The buffer is zero-filled: the XOR never equals `key` (see read_kernel).
__global__ void l2_chunk_read_kernel(const uint4* __restrict__ data, int64_t chunk_vectors,
                                     int passes, uint32_t key) {
  const uint4* chunk = data + static_cast<int64_t>(blockIdx.x) * chunk_vectors;
  const int64_t step = static_cast<int64_t>(blockDim.x) * kPeakL2LoadsInFlight;
  uint32_t acc = 0;
  for (int pass = 0; pass < passes; ++pass) {
    for (int64_t s = 0; s < chunk_vectors; s += step) {
      uint4 v[kPeakL2LoadsInFlight];
#pragma unroll
      for (int u = 0; u < kPeakL2LoadsInFlight; ++u) {
        v[u] = load_l2_volatile(chunk + s + threadIdx.x + u * blockDim.x);
      }
#pragma unroll
      for (int u = 0; u < kPeakL2LoadsInFlight; ++u) acc ^= xor_words(v[u]);
    }
  }
  if (acc == key) g_stream_sink = acc;
}

// Bytes = count × 16 (every element written once). Full grid, one streaming 16-byte store per
// thread, like copy_kernel.
__global__ void write_kernel(uint4* __restrict__ dst, int64_t count, uint32_t value) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) {
    __stcs(dst + i, make_uint4(value, value ^ 1u, value ^ 2u, static_cast<uint32_t>(i)));
  }
}

// ---- 3. fp32 FFMA ---------------------------------------------------------------------------

// FLOP = 2 × threads × iterations × kPeakFmaChains × kPeakFmaUnroll (one FFMA = 2 FLOP).
// mul/add are kernel arguments, so the chains cannot be folded; a·0.9999 + 1e-4 converges to 1,
// so no value overflows or turns denormal.
__global__ void __launch_bounds__(kPeakComputeThreads)
    ffma_kernel(float mul, float add, int iterations, float key) {
  float acc[kPeakFmaChains];
#pragma unroll
  for (int c = 0; c < kPeakFmaChains; ++c) acc[c] = static_cast<float>(threadIdx.x + c);
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int u = 0; u < kPeakFmaUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kPeakFmaChains; ++c) acc[c] = fmaf(acc[c], mul, add);
    }
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kPeakFmaChains; ++c) sum += acc[c];
  if (sum == key) g_compute_sink = sum;
}

// ---- 4. mma.sync ----------------------------------------------------------------------------

template <bool kBf16>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4],
                                             const uint32_t (&b)[2]) {
  if constexpr (kBf16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

// FLOP = warps × iterations × kPeakMmaChains × 2·16·8·16 (kMmaFlop per mma.sync).
// Inputs are 1/16 plus a per-lane variation (bf16 0x3D80, fp16 0x2C00): finite sums over the
// whole run, and not all-zero operands, which draw less power than real data.
template <bool kBf16>
__global__ void __launch_bounds__(kPeakComputeThreads) mma_sync_kernel(int iterations, float key) {
  const uint32_t base = kBf16 ? 0x3D80u : 0x2C00u;
  const uint32_t element = base + (threadIdx.x & 7u);
  const uint32_t pair = element | (element << 16);
  const uint32_t a[4] = {pair, pair ^ 1u, pair ^ 2u, pair ^ 3u};
  const uint32_t b[2] = {pair ^ 4u, pair ^ 5u};
  float d[kPeakMmaChains][4] = {};
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int c = 0; c < kPeakMmaChains; ++c) mma_m16n8k16<kBf16>(d[c], a, b);
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kPeakMmaChains; ++c) sum += d[c][0] + d[c][1] + d[c][2] + d[c][3];
  if (sum == key) g_compute_sink = sum;
}

// ---- host side ------------------------------------------------------------------------------

using Range = std::map<std::string, double>;

std::optional<double> metric(const Range& range, const char* name) {
  const auto it = range.find(name);
  if (it == range.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

std::optional<double> sum_metrics(const Range& range, const char* a, const char* b) {
  const auto x = metric(range, a);
  const auto y = metric(range, b);
  if (!x || !y) return std::nullopt;
  return *x + *y;
}

/// Whether a benchmark flushes L2 before every timed sample and before its profiled launch: the
/// DRAM benchmarks do, so that each launch streams from DRAM; the L2 benchmark must not (it reads
/// a resident buffer), nor need the compute ones.
enum class L2Flush { kNever, kBeforeEachLaunch };

/// One benchmark: its static description plus how to launch it and read its work off a range.
struct Benchmark {
  PeakBenchmarkRecord record;  ///< description filled in; results filled in by run_one
  std::function<void(cudaStream_t)> launch;
  L2Flush flush = L2Flush::kNever;
  std::function<std::optional<double>(const Range&)> counted;  ///< the work as counted
  std::string unsupported;  ///< non-empty: cannot run here, and why
};

void keep_max(std::optional<double>& best, const std::optional<double>& v) {
  if (v && (!best || *v > *best)) best = v;
}

/// Fixed sampling of `plan` for one benchmark, inside the NVTX range "peaks <name>".
TimingOptions peak_timing_options(const PeakBenchmarkPlan& plan, L2Flush flush,
                                  const std::string& name) {
  TimingOptions options;
  options.repetitions = plan.repetitions;
  options.warmup_runs = plan.warmup_runs;
  options.flush_l2 = flush == L2Flush::kBeforeEachLaunch;
  options.nvtx_range = "peaks " + name;
  return options;
}

/// Times `b` (and profiles it once when `session` is set), filling its record.
void run_one(Benchmark& b, const PeakBenchmarkPlan& plan, L2Flusher& flusher, cudaStream_t stream,
             ProfilerSession* session, std::vector<Range>& ranges) {
  PeakBenchmarkRecord& r = b.record;
  r.repetitions = plan.repetitions;
  if (!b.unsupported.empty()) {
    r.null_reason = b.unsupported;
    return;
  }
  try {
    const TimingResult t =
        time_launches(b.launch, peak_timing_options(plan, b.flush, r.name), flusher, stream);
    r.median_time_s = t.median_s;
    r.min_time_s = t.min_s;
    r.max_time_s = t.max_s;
    r.sm_clock_hz = t.sm_clock_hz;
    if (t.median_s > 0) r.rate = r.work_per_launch / t.median_s;
  } catch (const Error& e) {
    r.null_reason = fmt::format("failed: {}", e.what());
    (void)cudaGetLastError();  // clear a non-sticky error so the next benchmark can run
    return;
  }
  if (session == nullptr) return;
  try {
    const auto prepare = [&] {
      if (b.flush == L2Flush::kBeforeEachLaunch) {
        flusher.flush(stream);
      } else {
        b.launch(stream);  // L2 and clocks as in the timed samples
      }
      RFL_CUDA_CHECK(cudaStreamSynchronize(stream));
    };
    const std::vector<Range> result = session->profile(prepare, [&] { b.launch(stream); });
    if (result.size() == 1) {
      r.counted_work = b.counted(result.front());
      ranges.push_back(result.front());
    } else {
      // The range profiler makes one range per kernel launch; a copy the driver does not run as
      // a profiled kernel (cudaMemcpyAsync) leaves none, and the counted value stays null.
      r.counted_metric +=
          fmt::format(" (counter pass recorded {} ranges, expected 1)", result.size());
    }
  } catch (const Error& e) {
    // Timing stands without the cross-check; say why the counted value is missing.
    r.counted_metric += fmt::format(" (counter pass failed: {})", e.what());
    (void)cudaGetLastError();
  }
}

CounterPeakInputs counter_inputs(const std::vector<Range>& ranges) {
  CounterPeakInputs in;
  for (const auto& range : ranges) {
    if (!in.dram_bytes_per_cycle)
      in.dram_bytes_per_cycle = metric(range, kMetricDramBytesPeakPerCycle);
    if (!in.l2_bytes_per_cycle) in.l2_bytes_per_cycle = metric(range, kMetricL2BytesPeakPerCycle);
    if (!in.ffma_inst_per_cycle) in.ffma_inst_per_cycle = metric(range, kMetricFfmaPeakPerCycle);
    if (!in.tensor_bf16_per_cycle) {
      in.tensor_bf16_per_cycle = metric(range, kMetricTensorBf16PeakPerCycle);
    }
    if (!in.tensor_fp16_per_cycle) {
      in.tensor_fp16_per_cycle = metric(range, kMetricTensorFp16PeakPerCycle);
    }
    if (!in.tensor_fp8_per_cycle) {
      in.tensor_fp8_per_cycle = metric(range, kMetricTensorFp8PeakPerCycle);
    }
    // The highest clock any benchmark ran at: a ceiling is the rate at the clock the chip reaches.
    keep_max(in.sm_clock_hz, metric(range, kMetricSmClockHz));
    keep_max(in.dram_clock_hz, metric(range, kMetricDramClockHz));
    keep_max(in.l2_clock_hz, metric(range, kMetricL2ClockHz));
  }
  return in;
}

/// What the benchmark table is built from: the plan, the zero-filled buffers and the sizes derived
/// from them. Read-only while the benchmarks run.
struct BenchmarkInputs {
  PeakBenchmarkPlan plan;
  const uint4* src = nullptr;         ///< DRAM source, plan.dram_buffer_bytes, zero-filled
  uint4* dst = nullptr;               ///< DRAM destination, plan.dram_buffer_bytes
  const uint4* l2 = nullptr;          ///< L2 buffer, plan.l2_buffer_bytes, zero-filled
  int64_t dram_count = 0;             ///< 16-byte vectors per DRAM buffer
  unsigned int full_grid_blocks = 0;  ///< one kFullGridThreads-thread block per dram_count slice
  std::string wgmma_unsupported;      ///< non-empty off compute capability 9.0: why
};

constexpr uint32_t kNeverMatches = 1;
constexpr float kNeverMatchesF = -1.0f;  // every sum the compute kernels form is positive

std::string dram_buffer_text(const BenchmarkInputs& in) {
  return fmt::format("{:.3g} GiB", static_cast<double>(in.plan.dram_buffer_bytes) / kGiB);
}

std::string full_grid_launch_text(const BenchmarkInputs& in) {
  return fmt::format("{} blocks x {} threads, one 16 B vector per thread, ld/st.global.cs",
                     in.full_grid_blocks, kFullGridThreads);
}

std::optional<double> counted_dram_bytes(const Range& r) {
  return sum_metrics(r, kMetricDramReadBytes, kMetricDramWriteBytes);
}

Benchmark dram_copy_benchmark(const BenchmarkInputs& in) {
  Benchmark b;
  b.record.name = "dram_copy";
  b.record.kind = CeilingKind::kDram;
  b.record.label = "DRAM copy (read + write)";
  b.record.accounting =
      fmt::format("2 x {} (each byte read once and written once)", dram_buffer_text(in));
  b.record.launch = full_grid_launch_text(in);
  b.record.work_per_launch = 2.0 * static_cast<double>(in.plan.dram_buffer_bytes);
  b.record.counted_metric = "dram__bytes_read.sum + dram__bytes_write.sum";
  b.launch = [in](cudaStream_t s) {
    copy_kernel<<<in.full_grid_blocks, kFullGridThreads, 0, s>>>(in.src, in.dst, in.dram_count);
    RFL_CHECK_LAUNCH();
  };
  b.flush = L2Flush::kBeforeEachLaunch;
  b.counted = counted_dram_bytes;
  return b;
}

// Same buffers, sizing, flush and accounting as dram_copy; only the copy engine differs.
Benchmark dram_memcpy_benchmark(const BenchmarkInputs& in) {
  Benchmark b = dram_copy_benchmark(in);
  b.record.name = "dram_copy_memcpy";
  b.record.label = "DRAM copy (cudaMemcpyAsync D2D)";
  b.record.launch = "cudaMemcpyAsync(dst, src, buffer, cudaMemcpyDeviceToDevice)";
  b.launch = [in](cudaStream_t s) {
    RFL_CUDA_CHECK(cudaMemcpyAsync(in.dst, in.src, static_cast<size_t>(in.plan.dram_buffer_bytes),
                                   cudaMemcpyDeviceToDevice, s));
  };
  return b;
}

Benchmark dram_read_benchmark(const BenchmarkInputs& in) {
  Benchmark b;
  b.record.name = "dram_read";
  b.record.kind = CeilingKind::kDram;
  b.record.label = "DRAM read-only";
  b.record.accounting = fmt::format("{} read once", dram_buffer_text(in));
  b.record.launch = fmt::format("{} blocks x {} threads, {} x 16 B accesses in flight per thread",
                                in.plan.stream_blocks, kPeakStreamThreads, kLoadsInFlight);
  b.record.work_per_launch = static_cast<double>(in.plan.dram_buffer_bytes);
  b.record.counted_metric = kMetricDramReadBytes;
  b.launch = [in](cudaStream_t s) {
    read_kernel<<<in.plan.stream_blocks, kPeakStreamThreads, 0, s>>>(in.src, in.dram_count, 1,
                                                                     kNeverMatches);
    RFL_CHECK_LAUNCH();
  };
  b.flush = L2Flush::kBeforeEachLaunch;
  b.counted = [](const Range& r) { return metric(r, kMetricDramReadBytes); };
  return b;
}

Benchmark dram_write_benchmark(const BenchmarkInputs& in) {
  Benchmark b;
  b.record.name = "dram_write";
  b.record.kind = CeilingKind::kDram;
  b.record.label = "DRAM write-only";
  b.record.accounting = fmt::format("{} written once", dram_buffer_text(in));
  b.record.launch = full_grid_launch_text(in);
  b.record.work_per_launch = static_cast<double>(in.plan.dram_buffer_bytes);
  b.record.counted_metric = kMetricDramWriteBytes;
  b.launch = [in](cudaStream_t s) {
    write_kernel<<<in.full_grid_blocks, kFullGridThreads, 0, s>>>(in.dst, in.dram_count, 7u);
    RFL_CHECK_LAUNCH();
  };
  b.flush = L2Flush::kBeforeEachLaunch;
  b.counted = [](const Range& r) { return metric(r, kMetricDramWriteBytes); };
  return b;
}

Benchmark l2_read_benchmark(const BenchmarkInputs& in) {
  const PeakBenchmarkPlan& plan = in.plan;
  const double buffer_bytes = static_cast<double>(plan.l2_buffer_bytes);
  Benchmark b;
  b.record.name = "l2_read";
  b.record.kind = CeilingKind::kL2;
  b.record.label = "L2 read";
  b.record.accounting = fmt::format("{} passes x {:.3g} MiB (about L2/2) read, ld.global.cg",
                                    plan.l2_passes, buffer_bytes / kMiB);
  b.record.launch = fmt::format(
      "{} blocks x {} threads, one contiguous {:.0f} KiB chunk per block, {} x 16 B loads in "
      "flight per thread",
      plan.l2_blocks, kPeakL2Threads, buffer_bytes / plan.l2_blocks / 1024.0, kPeakL2LoadsInFlight);
  b.record.work_per_launch = static_cast<double>(plan.l2_passes) * plan.l2_buffer_bytes;
  b.record.counted_metric = kMetricL2Bytes;
  const int64_t chunk_vectors = plan.l2_buffer_bytes / 16 / plan.l2_blocks;
  b.launch = [in, chunk_vectors](cudaStream_t s) {
    l2_chunk_read_kernel<<<in.plan.l2_blocks, kPeakL2Threads, 0, s>>>(
        in.l2, chunk_vectors, in.plan.l2_passes, kNeverMatches);
    RFL_CHECK_LAUNCH();
  };
  b.counted = [](const Range& r) { return metric(r, kMetricL2Bytes); };
  return b;
}

Benchmark ffma_benchmark(const BenchmarkInputs& in) {
  const PeakBenchmarkPlan& plan = in.plan;
  const double threads = static_cast<double>(plan.fma_blocks) * kPeakComputeThreads;
  const double per_thread =
      static_cast<double>(plan.fma_iterations) * kPeakFmaChains * kPeakFmaUnroll;
  Benchmark b;
  b.record.name = "fp32_ffma";
  b.record.kind = CeilingKind::kFp32;
  b.record.label = "fp32 FFMA";
  b.record.accounting =
      fmt::format("2 FLOP x {:.0f} FFMA per thread x {:.0f} threads", per_thread, threads);
  b.record.launch = fmt::format("{} blocks x {} threads, {} independent chains per thread",
                                plan.fma_blocks, kPeakComputeThreads, kPeakFmaChains);
  b.record.work_per_launch = 2.0 * per_thread * threads;
  b.record.counted_metric = std::string("2 x ") + kMetricFfmaInst;
  b.launch = [plan](cudaStream_t s) {
    ffma_kernel<<<plan.fma_blocks, kPeakComputeThreads, 0, s>>>(0.9999f, 1e-4f, plan.fma_iterations,
                                                                kNeverMatchesF);
    RFL_CHECK_LAUNCH();
  };
  b.counted = [](const Range& r) -> std::optional<double> {
    const auto ffma = metric(r, kMetricFfmaInst);
    if (!ffma) return std::nullopt;
    return 2.0 * *ffma;
  };
  return b;
}

/// The input type of a tensor benchmark: bf16 or fp16 (mma.sync and wgmma), E4M3 (wgmma only).
enum class TensorInput { kBf16, kFp16, kFp8E4m3 };

/// The tensor-op counter of `input`, which counted_work reads.
const char* tensor_ops_metric(TensorInput input) {
  switch (input) {
    case TensorInput::kBf16:
      return kMetricTensorBf16Ops;
    case TensorInput::kFp16:
      return kMetricTensorFp16Ops;
    case TensorInput::kFp8E4m3:
      break;
  }
  return kMetricTensorFp8Ops;
}

/// "bf16", "fp16", "fp8": the benchmark's name and label part.
const char* tensor_input_name(TensorInput input) {
  switch (input) {
    case TensorInput::kBf16:
      return "bf16";
    case TensorInput::kFp16:
      return "fp16";
    case TensorInput::kFp8E4m3:
      break;
  }
  return "fp8";
}

/// Name, kind, label and counter of a tensor benchmark on `input`; `instruction` is "mma_sync"
/// or "wgmma". The fp8 counter is scaled by kTensorFp8FlopPerMetricUnit (its FLOPs-or-ops
/// convention, decided on the GPU: result/counter_fields.hpp).
Benchmark tensor_benchmark(TensorInput input, const std::string& instruction) {
  Benchmark b;
  b.record.name = fmt::format("tensor_{}_{}", tensor_input_name(input), instruction);
  b.record.kind = input == TensorInput::kBf16   ? CeilingKind::kTensorBf16
                  : input == TensorInput::kFp16 ? CeilingKind::kTensorFp16
                                                : CeilingKind::kTensorFp8;
  const double factor = input == TensorInput::kFp8E4m3 ? kTensorFp8FlopPerMetricUnit : 1.0;
  b.record.counted_metric = factor == 1.0
                                ? std::string(tensor_ops_metric(input))
                                : fmt::format("{} x {}", factor, tensor_ops_metric(input));
  b.counted = [metric_name = tensor_ops_metric(input), factor](const Range& r) {
    const auto value = metric(r, metric_name);
    return value ? std::optional<double>(*value * factor) : std::nullopt;
  };
  return b;
}

Benchmark mma_sync_benchmark(const BenchmarkInputs& in, TensorInput input) {
  const PeakBenchmarkPlan& plan = in.plan;
  const double warps = static_cast<double>(plan.mma_blocks) * kPeakComputeThreads / kWarpSize;
  const double per_warp = static_cast<double>(plan.mma_iterations) * kPeakMmaChains;
  Benchmark b = tensor_benchmark(input, "mma_sync");
  b.record.label = fmt::format("tensor {} mma.sync", input == TensorInput::kBf16 ? "bf16" : "fp16");
  b.record.accounting = fmt::format(
      "2*16*8*16 FLOP x {:.0f} mma.sync m16n8k16 per warp x {:.0f} warps", per_warp, warps);
  b.record.launch = fmt::format("{} blocks x {} threads, {} independent accumulators per warp",
                                plan.mma_blocks, kPeakComputeThreads, kPeakMmaChains);
  b.record.work_per_launch = kMmaFlop * per_warp * warps;
  b.launch = [plan, input](cudaStream_t s) {
    if (input == TensorInput::kBf16) {
      mma_sync_kernel<true>
          <<<plan.mma_blocks, kPeakComputeThreads, 0, s>>>(plan.mma_iterations, kNeverMatchesF);
    } else {
      mma_sync_kernel<false>
          <<<plan.mma_blocks, kPeakComputeThreads, 0, s>>>(plan.mma_iterations, kNeverMatchesF);
    }
    RFL_CHECK_LAUNCH();
  };
  return b;
}

Benchmark wgmma_benchmark(const BenchmarkInputs& in, TensorInput input) {
  const PeakBenchmarkPlan& plan = in.plan;
  const double per_group = static_cast<double>(plan.wgmma_iterations) * kPeakWgmmaPerTrip;
  const bool fp8 = input == TensorInput::kFp8E4m3;
  Benchmark b = tensor_benchmark(input, "wgmma");
  b.record.label = fmt::format("tensor {} wgmma", tensor_input_name(input));
  b.record.accounting = fmt::format(
      "2*64*256*{} FLOP x {:.0f} wgmma {} per warpgroup x {} warpgroups", fp8 ? 32 : 16, per_group,
      fp8 ? "m64n256k32 e4m3 (both K-major)" : "m64n256k16", plan.wgmma_blocks);
  b.record.launch = fmt::format(
      "{} blocks x 1 warpgroup, A and B tiles in shared memory, 64x256 fp32 accumulators in "
      "registers",
      plan.wgmma_blocks);
  b.record.work_per_launch = (fp8 ? kWgmmaFp8Flop : kWgmmaFlop) * per_group * plan.wgmma_blocks;
  const WgmmaInput wgmma_input = input == TensorInput::kBf16   ? WgmmaInput::kBf16
                                 : input == TensorInput::kFp16 ? WgmmaInput::kFp16
                                                               : WgmmaInput::kE4m3;
  b.launch = [plan, wgmma_input](cudaStream_t s) {
    launch_wgmma_benchmark(wgmma_input, plan.wgmma_blocks, plan.wgmma_iterations, s);
  };
  b.unsupported = in.wgmma_unsupported;
  return b;
}

/// Every benchmark, in run order (peak_benchmarks.hpp, PeakRunResult::benchmarks).
std::vector<Benchmark> benchmark_table(const BenchmarkInputs& in) {
  std::vector<Benchmark> table = {dram_copy_benchmark(in), dram_memcpy_benchmark(in),
                                  dram_read_benchmark(in), dram_write_benchmark(in),
                                  l2_read_benchmark(in),   ffma_benchmark(in)};
  for (const TensorInput input : {TensorInput::kBf16, TensorInput::kFp16}) {
    table.push_back(mma_sync_benchmark(in, input));
  }
  // wgmma last: sm_90a code, the newest path; if it faulted, the context would be lost for
  // anything after it.
  for (const TensorInput input : {TensorInput::kBf16, TensorInput::kFp16, TensorInput::kFp8E4m3}) {
    table.push_back(wgmma_benchmark(in, input));
  }
  return table;
}

/// Runs `benchmarks` in order, one progress line each (and one more for a null rate), and derives
/// the counter peaks from their ranges.
PeakRunResult run_benchmarks(std::vector<Benchmark>& benchmarks, const PeakBenchmarkPlan& plan,
                             L2Flusher& flusher, cudaStream_t stream, ProfilerSession* session,
                             std::ostream& progress) {
  PeakRunResult result;
  std::vector<Range> ranges;
  for (size_t i = 0; i < benchmarks.size(); ++i) {
    Benchmark& b = benchmarks[i];
    fmt::print(progress, "[{}/{}] {} ...\n", i + 1, benchmarks.size(), b.record.label);
    run_one(b, plan, flusher, stream, session, ranges);
    if (!b.record.rate && b.unsupported.empty()) ++result.failed;
    if (!b.record.null_reason.empty()) {
      fmt::print(progress, "[{}/{}] {}: {}\n", i + 1, benchmarks.size(), b.record.label,
                 b.record.null_reason);
    }
    result.benchmarks.push_back(b.record);
  }
  if (session == nullptr) {
    result.counters_null_reason = "no counter session";
  } else if (ranges.empty()) {
    result.counters_null_reason = "the counter pass produced no ranges";
  } else {
    result.counter_peaks = counter_inputs(ranges);
  }
  return result;
}

}  // namespace

const std::vector<std::string>& peak_counter_metric_names() {
  static const std::vector<std::string> names = {kMetricDramReadBytes,
                                                 kMetricDramWriteBytes,
                                                 kMetricL2Bytes,
                                                 kMetricFfmaInst,
                                                 kMetricTensorBf16Ops,
                                                 kMetricTensorFp16Ops,
                                                 kMetricTensorFp8Ops,
                                                 kMetricSmClockHz,
                                                 kMetricDramClockHz,
                                                 kMetricL2ClockHz,
                                                 kMetricDramBytesPeakPerCycle,
                                                 kMetricL2BytesPeakPerCycle,
                                                 kMetricFfmaPeakPerCycle,
                                                 kMetricTensorBf16PeakPerCycle,
                                                 kMetricTensorFp16PeakPerCycle,
                                                 kMetricTensorFp8PeakPerCycle};
  return names;
}

const std::vector<std::string>& peak_counter_verified_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& name : peak_counter_metric_names()) {
      if (name != kMetricL2ClockHz && name != kMetricL2BytesPeakPerCycle &&
          name != kMetricTensorFp16PeakPerCycle && name != kMetricTensorFp8PeakPerCycle) {
        out.push_back(name);
      }
    }
    return out;
  }();
  return names;
}

PeakRunResult run_peak_benchmarks(const PeakBenchmarkPlan& plan, int cc_major, int cc_minor,
                                  ProfilerSession* session, std::ostream& progress) {
  Stream owned_stream;
  const cudaStream_t stream = owned_stream.get();
  const auto vectors = [](int64_t bytes) { return (bytes + 15) / 16; };  // 16-byte uint4 each
  DeviceBuffer<uint4> src(vectors(plan.dram_buffer_bytes));
  DeviceBuffer<uint4> dst(vectors(plan.dram_buffer_bytes));
  DeviceBuffer<uint4> l2_buffer(vectors(plan.l2_buffer_bytes));
  // Zero-filled: the read kernels' XOR is then 0 (see read_kernel).
  RFL_CUDA_CHECK(
      cudaMemsetAsync(src.get(), 0, static_cast<size_t>(plan.dram_buffer_bytes), stream));
  RFL_CUDA_CHECK(
      cudaMemsetAsync(l2_buffer.get(), 0, static_cast<size_t>(plan.l2_buffer_bytes), stream));
  RFL_CUDA_CHECK(cudaStreamSynchronize(stream));
  int device = 0;
  RFL_CUDA_CHECK(cudaGetDevice(&device));
  int l2_bytes = 0;
  RFL_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  L2Flusher flusher(l2_bytes);

  BenchmarkInputs in;
  in.plan = plan;
  in.src = src.get();
  in.dst = dst.get();
  in.l2 = l2_buffer.get();
  in.dram_count = plan.dram_buffer_bytes / 16;
  in.full_grid_blocks =
      static_cast<unsigned int>((in.dram_count + kFullGridThreads - 1) / kFullGridThreads);
  if (cc_major != 9 || cc_minor != 0) {
    in.wgmma_unsupported = fmt::format(
        "wgmma needs compute capability 9.0 (sm_90a); this GPU is {}.{}", cc_major, cc_minor);
  }
  std::vector<Benchmark> benchmarks = benchmark_table(in);
  return run_benchmarks(benchmarks, plan, flusher, stream, session, progress);
}

}  // namespace rooflinectl
