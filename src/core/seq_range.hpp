// Parsing of the --seq axis (and of the lengths other flags take in its forms).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace rooflinectl {

/// Parses a sequence-length spec into an ascending (for ranges) list of positive integers:
///   "512..32768"      powers of two from 512 to 32768, both ends included (7 values);
///                     both ends must be powers of two
///   "1000..4000:1000" linear: 1000, 2000, 3000, 4000 (the end is included when the step hits it)
///   "512,1000,4097"   an explicit list (kept in the given order), each length at most once
/// Integers only. Throws a bad-input Error (exit 2) naming the bad token for: empty spec or
/// element, non-integer, zero or negative, reversed range, zero step, non-power-of-two ends of a
/// power-of-two range, values above 2^31 - 1, more than 1024 lengths, a length listed more than
/// once ("invalid --seq '0': ...").
std::vector<int64_t> parse_seq_spec(std::string_view spec);

/// The three forms, as messages about a malformed spec name them.
inline constexpr const char* kSeqForms =
    "forms: 512..32768 powers of two, 1000..4000:1000 linear, 512,1000,4097 a list";

/// How the messages about a malformed spec name what it lists: the flag, one element ("length",
/// "batch"), the three forms written with values that suit the flag, and the largest value allowed
/// with how messages write it.
struct ListSpecNames {
  std::string_view flag = "--seq";
  std::string_view element = "length";
  std::string_view forms = kSeqForms;
  /// Largest value (a sequence length is a 32-bit int in the kernels: 2^31 - 1).
  int64_t max_value = int64_t{2147483647};
  std::string_view max_text = "2147483647";
};

/// How messages name a --batch spec (`layer --batch`, `sweep --batch` in a range form).
inline constexpr ListSpecNames kBatchSpecNames{
    "--batch", "batch", "forms: 1..64 powers of two, 16..64:16 linear, 1,16,64 a list",
    // The bound of every integer axis (kMaxTensorElements, core/shape.hpp), as its list form says.
    int64_t{1} << 50, "2^50"};

/// parse_seq_spec for another flag that takes positive integers in the same forms (`model
/// --kv-lengths`, `layer --context` and `--batch`): the same rules, its messages in `names`' words
/// ("invalid --batch '1,1': batch 1 is listed more than once").
std::vector<int64_t> parse_length_spec(std::string_view spec, const ListSpecNames& names);

}  // namespace rooflinectl
