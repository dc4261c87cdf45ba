// The file kind an output name promises: `plot -o` writes SVG, `sweep --output` and
// `model --output` write JSON, `report -o` writes the kind its --format names. A name with another
// extension (report.png, chart.pdf) would hold text its viewers refuse, so it is refused before
// any work.
#pragma once

#include <string>

namespace rooflinectl {

/// Throws a bad-input Error unless `path` is a file name ending in `extension` (".svg", ".json";
/// either all lower or all upper case): "invalid --output '<path>': <what>, the file name must end
/// in <extension>" for another extension, "invalid --output '': an empty file name" for an empty
/// path, and "invalid --output '<dir>/.json': needs a file name before .json" for a name that is
/// the extension alone (a hidden file with no stem). `what` says what the file holds ("the chart
/// is SVG"); `flag` is the option the messages name (`layer --chart` names "--chart").
void check_output_extension(const std::string& path, const std::string& extension,
                            const std::string& what, const std::string& flag = "--output");

/// The extension of an output name in lower case, for picking a writer by it: ".md" for
/// "out.MD"; a name that is an extension alone (".json", which std::filesystem reads as a hidden
/// file with none) gives that extension, so that check_output_extension then asks for a name
/// before it; "" when there is none.
std::string output_name_extension(const std::string& path);

/// Throws a bad-input Error "invalid --output '<output>': is the input report '<input>', which
/// would be overwritten" when `output` names the same file as `input`: the same inode when both
/// exist (std::filesystem::equivalent, so hard links and other spellings count), else equal
/// weakly-canonical paths.
void check_output_is_not_input(const std::string& output, const std::string& input);

}  // namespace rooflinectl
