// Duplicate member names in JSON input. RFC 8259 (§4) leaves their meaning open and nlohmann keeps
// the last one silently, so a config with "batch" twice would run with whichever came last; the
// strict readers refuse such a file instead. Header-only, used by parse_json_text.
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace rooflinectl {

/// A parser callback for nlohmann::json::parse that throws a bad-input Error "<origin>: key
/// '<name>' appears more than once in <where>" at the second occurrence of a member name within
/// one object; <where> is the object's key path ("the document", "object 'points[3].timing'").
/// Keeps every value (returns true). One instance per parse.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(std::string origin) : origin_(std::move(origin)) {}

  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        count_element();
        open_.push_back(Container{event == Event::array_start, 0, "", {}});
        break;
      case Event::object_end:
      case Event::array_end:
        open_.pop_back();
        break;
      case Event::key: {
        Container& object = open_.back();
        const std::string name = parsed.get<std::string>();
        if (!object.keys.insert(name).second) {
          const std::string path = current_path();
          const std::string where = path.empty() ? "the document" : "object '" + path + "'";
          throw bad_input(
              fmt::format("{}: key '{}' appears more than once in {} (allowed: each key once)",
                          origin_, name, where));
        }
        object.key = name;
        break;
      }
      case Event::value:
        count_element();
        break;
    }
    return true;
  }

 private:
  struct Container {
    bool array;
    size_t elements;             ///< arrays: elements begun so far
    std::string key;             ///< objects: the member being read
    std::set<std::string> keys;  ///< objects: member names seen so far
  };

  void count_element() {
    if (!open_.empty() && open_.back().array) ++open_.back().elements;
  }

  /// Key path of the innermost open container, e.g. "points[3].timing".
  std::string current_path() const {
    std::string path;
    for (size_t i = 0; i + 1 < open_.size(); ++i) {
      const Container& c = open_[i];
      path += c.array ? fmt::format("[{}]", c.elements - 1) : (path.empty() ? "" : ".") + c.key;
    }
    return path;
  }

  std::string origin_;
  std::vector<Container> open_;
};

}  // namespace rooflinectl
