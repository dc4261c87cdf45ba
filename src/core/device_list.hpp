// `sweep --devices 0,1,…|all`: which CUDA devices a sweep spreads its points over. Pure host
// code: the device count is passed in, so the parser is tested without a GPU.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rooflinectl {

/// Parses "all" (devices 0..device_count − 1) or a comma-separated list of distinct CUDA device
/// indices, each in 0..device_count − 1, kept in the order given. Throws a bad-input Error naming
/// `flag`, the text and what is allowed for an empty item, a non-integer, an index listed more than
/// once or out of range; an environment Error (exit 3) with `no_device_text` (the caller's "no GPU,
/// here is the fix" line, device/device_info.hpp no_device_message()) when device_count is 0 and
/// the text is well formed.
std::vector<int> parse_device_list(std::string_view text, int device_count, std::string_view flag,
                                   const std::string& no_device_text);

}  // namespace rooflinectl
