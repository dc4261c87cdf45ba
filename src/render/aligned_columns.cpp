#include "render/aligned_columns.hpp"

#include <algorithm>

namespace rooflinectl {

size_t display_width(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char ch) {
    return (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  }));
}

std::string format_aligned_rows(const std::vector<std::vector<std::string>>& rows,
                                const std::vector<bool>& right_aligned) {
  std::vector<size_t> widths(right_aligned.size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], display_width(row[i]));
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      const std::string fill(widths[i] - display_width(row[i]), ' ');
      if (i > 0) line += "  ";
      if (i + 1 == row.size())
        line += row[i];
      else
        line += right_aligned[i] ? fill + row[i] : row[i] + fill;
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace rooflinectl
