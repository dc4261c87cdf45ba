#include "result/report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

// A derived value is only as known as all of its inputs: one missing counter makes the sum
// unknown rather than silently smaller.
std::optional<double> sum_if_all(std::initializer_list<std::optional<double>> terms) {
  double sum = 0;
  for (const auto& term : terms) {
    if (!term) return std::nullopt;
    sum += *term;
  }
  return sum;
}

std::optional<double> twice(const std::optional<double>& v) {
  if (!v) return std::nullopt;
  return 2.0 * *v;
}

}  // namespace

std::string to_string(PointStatus status) {
  switch (status) {
    case PointStatus::kOk:
      return "ok";
    case PointStatus::kSkipped:
      return "skipped";
    case PointStatus::kFailed:
      return "failed";
    case PointStatus::kInterrupted:
      return "interrupted";
  }
  return "unknown";
}

PointStatus parse_point_status(const std::string& text) {
  if (text == "ok") return PointStatus::kOk;
  if (text == "skipped") return PointStatus::kSkipped;
  if (text == "failed") return PointStatus::kFailed;
  if (text == "interrupted") return PointStatus::kInterrupted;
  throw bad_input(
      fmt::format("invalid point status '{}': allowed ok, skipped, failed, interrupted", text));
}

std::optional<double> KernelCounters::dram_bytes() const {
  return sum_if_all({dram_read_bytes, dram_write_bytes});
}

// An FMA is a multiply and an add: 2 FLOPs per thread instruction (the convention of the
// Nsight Compute roofline section, which weights sm__sass_thread_inst_executed_op_ffma by 2).
std::optional<double> KernelCounters::fp32_flop() const {
  return sum_if_all({twice(ffma_inst), fadd_inst, fmul_inst});
}

std::optional<double> KernelCounters::fp16_flop() const {
  return sum_if_all({twice(hfma_inst), hadd_inst, hmul_inst});
}

std::optional<double> KernelCounters::tensor_flop() const {
  if (!tensor_bf16_flop && !tensor_fp16_flop && !tensor_fp8_flop) return std::nullopt;
  return tensor_bf16_flop.value_or(0.0) + tensor_fp16_flop.value_or(0.0) +
         tensor_fp8_flop.value_or(0.0);
}

std::optional<double> KernelCounters::total_flop() const {
  return sum_if_all({tensor_flop(), fp32_flop(), fp16_flop()});
}

std::optional<double> CounterResult::dram_write_bytes_isolated() const {
  return sum_if_all({total.dram_write_bytes, dram_writeback_bytes});
}

std::optional<double> CounterResult::dram_bytes_isolated() const {
  return sum_if_all({total.dram_read_bytes, total.dram_write_bytes, dram_writeback_bytes});
}

std::vector<std::string> operators_in_order(const Report& report) {
  std::vector<std::string> ops;
  for (const auto& p : report.points) {
    if (std::find(ops.begin(), ops.end(), p.op) == ops.end()) ops.push_back(p.op);
  }
  return ops;
}

}  // namespace rooflinectl
