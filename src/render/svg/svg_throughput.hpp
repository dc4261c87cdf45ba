// The throughput chart of a sweep report (rates and tokens/s against L), as a self-contained SVG.
#pragma once

#include <string>

#include "result/report.hpp"

namespace rooflinectl {

/// Three panels against the sequence length L (log axis, a tick at every swept L):
/// 1. achieved TFLOP/s of the tensor-core operators (naive and flash attention side by side, GEMM)
///    and of any other operator that is compute-bound at some L;
/// 2. achieved DRAM TB/s of the operators that are memory-bound at every L and not in panel 1
///    (GELU, LayerNorm, decode attention), under the dashed HBM roof;
/// 3. prefill tokens/s (B·L / prefill latency) of flash and naive attention on a log axis, with
///    the speedup flash/naive written at every L where both ran.
/// Markers have class "point" with data-op, data-seq-len and data-panel (tflops | tbps | tokens);
/// panels 1–2 use the roofline placement and leave points without it out, panel 3 uses the timing;
/// a note lists what was left out. Colours and shapes match roofline_svg. Deterministic; does not
/// throw for any Report.
std::string throughput_svg(const Report& report);

}  // namespace rooflinectl
