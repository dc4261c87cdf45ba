// The file kind an output name promises: `plot -o` writes SVG, `sweep --output` and
// `model --output` write JSON. A name with another extension (report.png, chart.pdf) would hold
// text its viewers refuse, so it is refused before any work.
#pragma once

#include <string>

namespace rooflinectl {

/// Throws a bad-input Error "invalid --output '<path>': <what>, the file name must end in
/// <extension>" unless `path` ends in `extension` (".svg", ".json"; either all lower or all upper
/// case). `what` says what the file holds ("the chart is SVG").
void check_output_extension(const std::string& path, const std::string& extension,
                            const std::string& what);

}  // namespace rooflinectl
