// Reconciliation: the analytic model (src/model/operator_model) against the counters of one
// measured point. A ratio outside its documented band is flagged with an explanation, never
// hidden: a large gap is either a finding about the kernel (re-reads L2 did not catch) or a bug
// (a FLOP formula, a unit, a counter). Pure host code, no CUDA.
#pragma once

#include "core/pipe.hpp"
#include "result/report.hpp"

namespace rooflinectl {

/// Documented bands on measured / analytic.
/// Tensor-pipe FLOPs: the tensor counters count exactly the MMA work, so ±2% covers only tile
/// padding at lengths that are not tile multiples; anything else is a formula or counter bug.
inline constexpr double kTensorFlopBandLow = 0.98;
inline constexpr double kTensorFlopBandHigh = 1.02;
/// CUDA-core FLOPs (fp32 + fp16 pipes): the analytic count is a per-element convention; the
/// arithmetic a kernel adds around it (softmax rescaling, index math done in fp32) stays within
/// this band, while a special function evaluated as an FMA polynomial leaves it.
inline constexpr double kCudaCoreFlopBandLow = 0.8;
inline constexpr double kCudaCoreFlopBandHigh = 1.25;
/// DRAM bytes: above 1.5× the as-implemented model means re-reads that L2 did not absorb (or
/// stray writes); below 0.5× the minimum means inputs were already in L2 or a counter problem.
inline constexpr double kDramAboveImplemented = 1.5;
inline constexpr double kDramBelowMinimum = 0.5;

/// DRAM writes of the isolated launch (in window + deferred write-back) against the bytes the SMs
/// stored into L2: a disagreement above 2% is flagged (docs/counter-method.md).
inline constexpr double kWriteCheckBandLow = 0.98;
inline constexpr double kWriteCheckBandHigh = 1.02;

/// Compares `point.analytic` with `point.counters.total`:
///  - FLOPs: tensor-pipe operators (pipe kTensor) compare the tensor counters with analytic.flop
///    (band kTensorFlopBand*); CUDA-core operators compare all counted FLOPs (band kCudaCoreFlop*).
///  - DRAM bytes (the isolated launch's, with the deferred write-back, when measured; else the
///    in-window bytes) against min_dram_bytes (low band) and implemented_dram_bytes (high band);
///    one row when the two are equal.
///  - DRAM writes of the isolated launch against the L2 store bytes (band kWriteCheckBand*).
///  - flash_attention also: DRAM bytes against the FlashAttention IO bound with the paper's block
///    size for M = shared memory per SM of `device` (when its compute capability is known), and
///    L2 bytes against DRAM bytes with the share of the K/V re-reads that L2 absorbed.
/// Explanations quote the numbers they rest on (reads and writes apart, tile-granular FLOPs, the
/// GEMM's no-reuse read count). A point without counters gets no checks and a null_reason.
Reconciliation reconcile(const PointResult& point, Pipe pipe, const DeviceRecord& device);

/// True when any check of `r` is flagged.
bool has_flags(const Reconciliation& r);

}  // namespace rooflinectl
