// Duplicate member names in JSON input. RFC 8259 (§4) leaves their meaning open and nlohmann keeps
// the last one silently, so a config with "batch" twice would run with whichever came last; the
// strict readers refuse such a file instead. Header-only, used by parse_json_text.
//
// The check sits in the document builder itself (a SAX handler): a member name is looked up once,
// where it is inserted, so the parse costs what json::parse costs. A parser callback on json::parse
// did the same job with a set of names per object beside the document (three more copies of each
// name): 10-20% more time on the 20 MB of a merged report of 2016 points.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace rooflinectl {

/// A SAX handler for nlohmann::json::sax_parse that builds the document json::parse would build,
/// and throws a bad-input Error "<origin>: key '<name>' appears more than once in <where>" at the
/// second occurrence of a member name within one object; <where> is the object's key path ("the
/// document", "object 'points[3].timing'"). A syntax error is thrown as nlohmann's parse_error,
/// a number past double's range as its out_of_range (406), as json::parse throws them.
/// One instance per parse; `root` receives the document.
class StrictDomBuilder {
 public:
  using Json = nlohmann::json;

  StrictDomBuilder(Json& root, std::string origin) : root_(root), origin_(std::move(origin)) {}

  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(Json::number_integer_t value) { return add(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return add(value); }
  bool number_float(Json::number_float_t value, const Json::string_t& /*text*/) {
    return add(value);
  }
  bool string(Json::string_t& value) { return add(value); }
  bool binary(Json::binary_t& value) { return add(std::move(value)); }

  bool start_object(std::size_t /*elements: unknown in JSON text*/) {
    Json& object = place(Json::value_t::object);
    open_.push_back(Container{nullptr, &object.get_ref<Json::object_t&>(), nullptr});
    return true;
  }

  /// Inserts the member (null until its value arrives); throws when the object already has it.
  bool key(Json::string_t& name) {
    Container& object = open_.back();
    const auto [member, inserted] = object.object->emplace(name, nullptr);
    if (!inserted) throw duplicate_key(name);
    object.key = &member->first;
    member_ = &member->second;
    return true;
  }

  bool end_object() {
    open_.pop_back();
    return true;
  }

  bool start_array(std::size_t /*elements: unknown in JSON text*/) {
    Json& array = place(Json::value_t::array);
    open_.push_back(Container{&array.get_ref<Json::array_t&>(), nullptr, nullptr});
    return true;
  }

  bool end_array() {
    open_.pop_back();
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const Exception& error) {
    throw error;
  }

 private:
  /// An open array or object (exactly one of the pointers set) and, for an object, the name of
  /// the member being read (a key of the object's own map, which stays where it is).
  struct Container {
    Json::array_t* array;
    Json::object_t* object;
    const std::string* key;
  };

  template <typename Value>
  bool add(Value&& value) {
    place(std::forward<Value>(value));
    return true;
  }

  /// Puts `value` where the parser stands: the root, the next array element or the member whose
  /// key came last. Returns the stored value.
  template <typename Value>
  Json& place(Value&& value) {
    if (open_.empty()) {
      root_ = Json(std::forward<Value>(value));
      return root_;
    }
    if (Json::array_t* array = open_.back().array) {
      return array->emplace_back(std::forward<Value>(value));
    }
    *member_ = Json(std::forward<Value>(value));
    return *member_;
  }

  Error duplicate_key(const std::string& name) const {
    const std::string path = open_path();
    const std::string where = path.empty() ? "the document" : "object '" + path + "'";
    return bad_input(
        fmt::format("{}: key '{}' appears more than once in {} (allowed: each key once)", origin_,
                    name, where));
  }

  /// Key path of the innermost open container, e.g. "points[3].timing".
  std::string open_path() const {
    std::string path;
    for (size_t i = 0; i + 1 < open_.size(); ++i) {
      const Container& c = open_[i];
      path +=
          c.array ? fmt::format("[{}]", c.array->size() - 1) : (path.empty() ? "" : ".") + *c.key;
    }
    return path;
  }

  Json& root_;
  std::string origin_;
  std::vector<Container> open_;
  Json* member_ = nullptr;  ///< the member whose key came last
};

}  // namespace rooflinectl
