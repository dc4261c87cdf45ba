// Strict, typed reading of JSON input (sweep configs, reports). Every failure is a bad-input
// Error that names the file and the full key path ("points[3].timing.median_s"), so a user can
// find the bad entry without a debugger. Header-only: shared by src/core and src/io.
#pragma once

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json_duplicate_keys.hpp"

namespace rooflinectl {

/// Reads the whole file at `path`. `what` names the kind of file in the message ("config",
/// "report"). Throws a bad-input Error with the OS reason (strerror) when it cannot be read.
inline std::string read_text_file(const std::string& path, const std::string& what) {
  // std::ifstream opens a directory without error on Linux and then reads nothing.
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw bad_input(fmt::format("cannot read {} '{}': is a directory", what, path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw bad_input(fmt::format("cannot read {} '{}': {}", what, path, std::strerror(errno)));
  }
  // One read of the whole size (a 2000-point report is 20 MB: a stream copy grows and copies it
  // several times); a file whose size is unknown (a pipe) is read through the stream.
  std::string text;
  std::error_code size_error;
  const auto size = std::filesystem::file_size(path, size_error);
  if (!size_error) {
    text.resize(static_cast<size_t>(size));
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    in.clear();
  }
  std::ostringstream rest;
  rest << in.rdbuf();
  if (in.bad()) {
    throw bad_input(fmt::format("cannot read {} '{}': {}", what, path, std::strerror(errno)));
  }
  text += rest.str();
  return text;
}

/// nlohmann::json's exception text without its "[json.exception.parse_error.101] " id, which
/// names the library's error table rather than anything in the user's file.
inline std::string json_error_text(const std::string& what) {
  if (what.rfind("[json.exception.", 0) != 0) return what;
  const std::size_t end = what.find("] ");
  return end == std::string::npos ? what : what.substr(end + 2);
}

/// Parses `text` as JSON; a syntax error, or a member name repeated within one object
/// (StrictDomBuilder), is a bad-input Error naming `origin` and the position or key.
inline nlohmann::json parse_json_text(const std::string& text, const std::string& origin) {
  try {
    nlohmann::json document;
    StrictDomBuilder builder(document, origin);
    nlohmann::json::sax_parse(text, &builder);
    return document;
  } catch (const nlohmann::json::parse_error& e) {
    throw bad_input(fmt::format("{}: malformed JSON: {}", origin, json_error_text(e.what())));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number past double's range (1e400) is refused while parsing (error 406), not a parse_error.
    throw bad_input(fmt::format("{}: unusable JSON: {}", origin, json_error_text(e.what())));
  }
}

/// Typed access to the members of one JSON object. Holds a reference: `object` must outlive it.
/// `path` is the object's key path inside the document ("" for the root).
class JsonObjectReader {
 public:
  /// Throws a bad-input Error when `object` is not a JSON object.
  JsonObjectReader(const nlohmann::json& object, std::string origin, std::string path)
      : object_(object), origin_(std::move(origin)), path_(std::move(path)) {
    if (!object_.is_object()) {
      throw bad_input(fmt::format("{}: {} must be a JSON object, found {}", origin_,
                                  path_.empty() ? "the document" : "key '" + path_ + "'",
                                  object_.type_name()));
    }
  }

  /// The get_* members below throw a bad-input Error naming origin and key path when the member
  /// is missing or has another JSON type; integers must be JSON integers (1.0 is refused).
  bool has(const std::string& key) const { return object_.contains(key); }
  /// True when the member is JSON null; a missing member is an error, not null.
  bool is_null(const std::string& key) const { return required(key).is_null(); }
  /// True when the member is a JSON array; a missing member is an error.
  bool is_array(const std::string& key) const { return required(key).is_array(); }
  /// True when the member is a JSON string; a missing member is an error.
  bool is_string(const std::string& key) const { return required(key).is_string(); }

  /// Throws for the first member whose name is not in `allowed` (strict files catch typos).
  void reject_unknown_keys(const std::vector<std::string>& allowed) const {
    for (const auto& item : object_.items()) {
      bool known = false;
      for (const auto& name : allowed) known = known || item.key() == name;
      if (!known) {
        std::string list;
        for (const auto& name : allowed) list += (list.empty() ? "" : ", ") + name;
        throw bad_input(
            fmt::format("{}: unknown key '{}' (allowed: {})", origin_, key_path(item.key()), list));
      }
    }
  }

  int64_t get_int64(const std::string& key) const { return as_int64(required(key), key_path(key)); }

  int get_int(const std::string& key) const {
    const int64_t v = get_int64(key);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
      fail(key_path(key), fmt::format("value {} does not fit a 32-bit integer", v));
    }
    return static_cast<int>(v);
  }

  uint64_t get_uint64(const std::string& key) const {
    const nlohmann::json& v = required(key);
    if (!v.is_number_unsigned()) {
      fail(key_path(key), fmt::format("expected a non-negative integer, found {}", describe(v)));
    }
    return v.get<uint64_t>();
  }

  /// null reads as NaN: the writer stores a non-finite value as null plus a reason, so this is
  /// the inverse for fields that cannot be empty.
  double get_double(const std::string& key) const {
    return as_double(required(key), key_path(key));
  }

  /// null reads as nullopt.
  std::optional<double> get_optional_double(const std::string& key) const {
    const nlohmann::json& v = required(key);
    if (v.is_null()) return std::nullopt;
    return as_double(v, key_path(key));
  }

  bool get_bool(const std::string& key) const {
    const nlohmann::json& v = required(key);
    if (!v.is_boolean()) {
      fail(key_path(key), fmt::format("expected true or false, found {}", describe(v)));
    }
    return v.get<bool>();
  }

  std::string get_string(const std::string& key) const {
    return as_string(required(key), key_path(key));
  }

  /// null reads as nullopt.
  std::optional<std::string> get_optional_string(const std::string& key) const {
    const nlohmann::json& v = required(key);
    if (v.is_null()) return std::nullopt;
    return as_string(v, key_path(key));
  }

  /// Reads a string member and converts it with `parse` (e.g. parse_dtype); a bad-input Error from
  /// `parse`, which names only the token, is re-thrown naming the file and key as well.
  template <typename Parse>
  auto get_parsed(const std::string& key, Parse parse) const {
    const std::string text = get_string(key);
    try {
      return parse(text);
    } catch (const Error& e) {
      fail(key_path(key), e.what());
    }
  }

  JsonObjectReader get_object(const std::string& key) const {
    return JsonObjectReader(required(key), origin_, key_path(key));
  }

  /// Member `key` as an object whose members are all strings, e.g. {"gemm": "v1"}.
  std::map<std::string, std::string> get_string_map(const std::string& key) const {
    const JsonObjectReader object = get_object(key);
    std::map<std::string, std::string> out;
    for (const auto& item : object.object_.items()) {
      out.emplace(item.key(), object.get_string(item.key()));
    }
    return out;
  }

  std::vector<std::string> get_string_array(const std::string& key) const {
    std::vector<std::string> out;
    const nlohmann::json& array = required_array(key);
    for (size_t i = 0; i < array.size(); ++i)
      out.push_back(as_string(array[i], element_path(key, i)));
    return out;
  }

  std::vector<int64_t> get_int64_array(const std::string& key) const {
    std::vector<int64_t> out;
    const nlohmann::json& array = required_array(key);
    for (size_t i = 0; i < array.size(); ++i)
      out.push_back(as_int64(array[i], element_path(key, i)));
    return out;
  }

  std::vector<bool> get_bool_array(const std::string& key) const {
    std::vector<bool> out;
    const nlohmann::json& array = required_array(key);
    for (size_t i = 0; i < array.size(); ++i) {
      if (!array[i].is_boolean()) {
        fail(element_path(key, i),
             fmt::format("expected true or false, found {}", describe(array[i])));
      }
      out.push_back(array[i].get<bool>());
    }
    return out;
  }

  /// null elements read as NaN (see get_double).
  std::vector<double> get_double_array(const std::string& key) const {
    std::vector<double> out;
    const nlohmann::json& array = required_array(key);
    for (size_t i = 0; i < array.size(); ++i)
      out.push_back(as_double(array[i], element_path(key, i)));
    return out;
  }

  std::vector<JsonObjectReader> get_object_array(const std::string& key) const {
    std::vector<JsonObjectReader> out;
    const nlohmann::json& array = required_array(key);
    for (size_t i = 0; i < array.size(); ++i)
      out.emplace_back(array[i], origin_, element_path(key, i));
    return out;
  }

  /// Throws a bad-input Error about member `key`: "<origin>: key '<path>': <what>".
  [[noreturn]] void fail_key(const std::string& key, const std::string& what) const {
    fail(key_path(key), what);
  }

 private:
  std::string key_path(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  std::string element_path(const std::string& key, size_t index) const {
    return fmt::format("{}[{}]", key_path(key), index);
  }

  [[noreturn]] void fail(const std::string& full_key, const std::string& what) const {
    throw bad_input(fmt::format("{}: key '{}': {}", origin_, full_key, what));
  }

  static std::string describe(const nlohmann::json& v) {
    constexpr size_t kMaxShown = 40;  // enough to recognize a value, short enough for one line
    if (v.is_null()) return "null";   // its type name and its text are the same word
    std::string text = v.dump();
    if (text.size() > kMaxShown) text = text.substr(0, kMaxShown) + "...";
    return fmt::format("{} {}", v.type_name(), text);
  }

  const nlohmann::json& required(const std::string& key) const {
    const auto it = object_.find(key);
    if (it == object_.end()) fail(key_path(key), "missing (required)");
    return *it;
  }

  const nlohmann::json& required_array(const std::string& key) const {
    const nlohmann::json& v = required(key);
    if (!v.is_array()) fail(key_path(key), fmt::format("expected an array, found {}", describe(v)));
    return v;
  }

  int64_t as_int64(const nlohmann::json& v, const std::string& full_key) const {
    if (!v.is_number_integer()) {
      fail(full_key, fmt::format("expected an integer, found {}", describe(v)));
    }
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail(full_key, fmt::format("value {} does not fit a 64-bit signed integer", v.dump()));
    }
    return v.get<int64_t>();
  }

  double as_double(const nlohmann::json& v, const std::string& full_key) const {
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!v.is_number()) fail(full_key, fmt::format("expected a number, found {}", describe(v)));
    return v.get<double>();
  }

  std::string as_string(const nlohmann::json& v, const std::string& full_key) const {
    if (!v.is_string()) fail(full_key, fmt::format("expected a string, found {}", describe(v)));
    return v.get<std::string>();
  }

  const nlohmann::json& object_;
  std::string origin_;
  std::string path_;
};

}  // namespace rooflinectl
