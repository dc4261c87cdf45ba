#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"
#include "kernels/operator.hpp"

namespace rooflinectl {

// Each family file defines one factory; registration is explicit, in kOperatorNames order
// (core/operator_names.hpp).
OperatorSpec naive_attention_spec();
OperatorSpec flash_attention_spec();
OperatorSpec gemm_spec();
OperatorSpec gelu_spec();
OperatorSpec layernorm_spec();
OperatorSpec decode_attention_spec();
OperatorSpec rmsnorm_spec();
OperatorSpec swiglu_spec();
OperatorSpec geglu_spec();

const std::vector<OperatorSpec>& operator_specs() {
  static const std::vector<OperatorSpec> specs = {
      naive_attention_spec(),  flash_attention_spec(), gemm_spec(),   gelu_spec(), layernorm_spec(),
      decode_attention_spec(), rmsnorm_spec(),         swiglu_spec(), geglu_spec()};
  return specs;
}

const OperatorSpec& find_operator(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& spec : operator_specs()) {
    if (spec.name == name) return spec;
    names.push_back(spec.name);
  }
  throw bad_input(fmt::format("unknown operator '{}': allowed {}", name, fmt::join(names, ", ")));
}

const KernelVersion& find_version(const OperatorSpec& spec, const std::string& key) {
  return find_kernel_version(spec.name, spec.versions, spec.default_version, key);
}

void check_kernel_requests(const KernelRequests& requests) {
  for (const auto& [op, key] : requests) {
    const auto spec = std::find_if(operator_specs().begin(), operator_specs().end(),
                                   [&op = op](const OperatorSpec& s) { return s.name == op; });
    if (spec == operator_specs().end()) {
      std::vector<std::string> names;
      for (const auto& s : operator_specs()) names.push_back(s.name);
      throw bad_input(fmt::format("invalid --kernel '{}={}': unknown operator '{}' (allowed: {})",
                                  op, key, op, fmt::join(names, ", ")));
    }
    find_version(*spec, key);
  }
}

}  // namespace rooflinectl
