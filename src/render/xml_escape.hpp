// XML character escaping shared by the SVG charts and the JUnit report.
#pragma once

#include <string>

namespace rooflinectl {

/// Escapes &, <, >, " and ' for XML text content and attribute values.
std::string xml_escape(const std::string& text);

}  // namespace rooflinectl
