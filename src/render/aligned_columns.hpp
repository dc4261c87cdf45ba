// Console tables in aligned columns, shared by the compare writers. Pure; never throws.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rooflinectl {

/// Columns a text takes on a terminal: one per UTF-8 code point ("µs" is 3 bytes, 2 columns).
size_t display_width(const std::string& text);

/// `rows` (the first one the header; every row as many cells as `right_aligned`) as lines of
/// cells padded to their column's widest, two blanks apart, each line ending in '\n'. A cell
/// whose right_aligned entry is true is padded on the left. The last column is not padded:
/// trailing blanks only make copied output noisy.
std::string format_aligned_rows(const std::vector<std::vector<std::string>>& rows,
                                const std::vector<bool>& right_aligned);

}  // namespace rooflinectl
