#include "render/svg/svg_layer_split.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "render/svg/svg_common.hpp"
#include "render/value_format.hpp"

namespace rooflinectl {
namespace {

constexpr double kLeft = 70;          // y axis and its title
constexpr double kLegendWidth = 190;  // right of the panels
constexpr double kTitleHeight = 44;
constexpr double kLabelBand = 58;    // rotated layer times above the bars
constexpr double kPlotHeight = 220;  // one panel's bars
constexpr double kAxisBand = 44;     // length ticks and the axis title under a panel
constexpr double kStep = 38;         // px per length
constexpr double kBarFraction = 0.7;

/// Colour of a layer role (model/layer_operators.hpp names them): norms grey, projections blue,
/// attention vermillion, the FFN green with its activation orange (Okabe–Ito hues, Wong 2011).
std::string role_colour(const std::string& role) {
  static const std::map<std::string, std::string> colours = {{"input_norm", "#999999"},
                                                             {"qkv_proj", "#56B4E9"},
                                                             {"attention", "#D55E00"},
                                                             {"o_proj", "#0072B2"},
                                                             {"post_attention_norm", "#cccccc"},
                                                             {"ffn_gate", "#009E73"},
                                                             {"ffn_up", lighten("#009E73", 0.45)},
                                                             {"ffn_act", "#E69F00"},
                                                             {"ffn_gated_act", "#E69F00"},
                                                             {"ffn_down", "#00573f"}};
  const auto it = colours.find(role);
  return it != colours.end() ? it->second : "#666666";
}

}  // namespace

std::string length_tick(int64_t length) {
  if (length >= 1024 && length % 1024 == 0) return fmt::format("{}K", length / 1024);
  return std::to_string(length);
}

std::string layer_split_svg(const LayerTimeSplit& r) {
  const bool decode = r.decode;
  const std::string length_name = decode ? "context" : "L";
  const size_t lengths = std::max<size_t>(r.lengths.size(), 1);
  const double panel_width = std::max(240.0, kStep * static_cast<double>(lengths));
  const double panel_height = kLabelBand + kPlotHeight + kAxisBand;
  const size_t panels = std::max<size_t>(r.batches.size(), 1);
  const double width = kLeft + panel_width + 30 + kLegendWidth;
  const std::vector<std::string>& roles = r.roles;
  std::vector<std::string> missing;
  std::string body;
  for (size_t b = 0; b < r.batches.size(); ++b) {
    const double top = kTitleHeight + static_cast<double>(b) * panel_height;
    const double plot_top = top + kLabelBand;
    const double plot_bottom = plot_top + kPlotHeight;
    const Scale sy = Scale::linear(0.0, 1.0, plot_bottom, plot_top);
    body += text_svg(kLeft - 6, top + 14, fmt::format("B = {}", r.batches[b]), 12, "end",
                     R"(font-weight="bold")");
    for (const double share : {0.0, 0.25, 0.5, 0.75, 1.0}) {
      body +=
          fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#e5e5e5"/>)"
                      "\n",
                      kLeft, sy(share), kLeft + panel_width, sy(share));
      body += text_svg(kLeft - 6, sy(share) + 4, fmt::format("{:g}%", share * 100), 10, "end",
                       R"(class="tick")");
    }
    body += text_svg(
        18, (plot_top + plot_bottom) / 2, "share of layer time", 11, "middle",
        fmt::format(R"svg(transform="rotate(-90 18 {:.1f})")svg", (plot_top + plot_bottom) / 2));
    for (size_t l = 0; l < r.lengths.size(); ++l) {
      const double cx = kLeft + kStep * (static_cast<double>(l) + 0.5);
      body += text_svg(cx, plot_bottom + 14, length_tick(r.lengths[l]), 10, "middle",
                       R"(class="tick")");
      const auto found = std::find_if(r.bars.begin(), r.bars.end(), [&](const LayerSplitBar& bar) {
        return bar.batch == r.batches[b] && bar.length == r.lengths[l];
      });
      LayerSplitBar bar = found != r.bars.end() ? *found : LayerSplitBar{};
      if (bar.layer_s && !(*bar.layer_s > 0)) bar.layer_s.reset();
      if (!bar.layer_s) {
        missing.push_back(fmt::format("B = {}, {} = {}", r.batches[b], length_name, r.lengths[l]));
        continue;
      }
      double below = 0;
      for (size_t i = 0; i < bar.op_s.size() && i < roles.size(); ++i) {
        const double share = bar.op_s[i].value_or(0.0) / *bar.layer_s;
        body += fmt::format(
            R"(<rect class="segment" data-op="{}" data-batch="{}" data-length="{}" data-share="{:.4f}" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"/>)"
            "\n",
            xml_escape(roles[i]), r.batches[b], r.lengths[l], share, cx - kStep * kBarFraction / 2,
            sy(below + share), kStep * kBarFraction, sy(below) - sy(below + share),
            role_colour(roles[i]));
        below += share;
      }
      body +=
          text_svg(cx + 3, plot_top - 4, format_time_s(*bar.layer_s), 9, "start",
                   fmt::format(R"svg(class="layer-time" transform="rotate(-90 {:.1f} {:.1f})")svg",
                               cx + 3, plot_top - 4));
    }
    body += text_svg(kLeft + panel_width / 2, plot_bottom + 32,
                     decode ? "KV-cache context (positions)" : "prompt length L (tokens)", 11,
                     "middle", R"(class="axis-title")");
  }
  // Legend: the top role first, as the bars stack.
  const double legend_x = kLeft + panel_width + 30;
  double legend_y = kTitleHeight + kLabelBand;
  for (auto role = roles.rbegin(); role != roles.rend(); ++role) {
    body += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="12" height="12" fill="{}"/>)"
                        "\n",
                        legend_x, legend_y - 10, role_colour(*role));
    body += text_svg(legend_x + 18, legend_y, *role, 11, "start", R"(class="legend")");
    legend_y += 18;
  }
  const std::string headline =
      fmt::format("{}: one layer's time split, {}", r.model_name, decode ? "decode" : "prefill");
  const std::string source = fmt::format("{} on {}", r.basis, r.device);
  const std::string title = headline + " (" + source + ")";
  double height = kTitleHeight + panel_height * static_cast<double>(panels) + 10;
  std::string notes;
  if (!missing.empty()) {
    notes += text_svg(kLeft, height + 4,
                      truncated_text("no bar (an operator not measured): " +
                                         fmt::format("{}", fmt::join(missing, "; ")),
                                     160),
                      10, "start", R"(class="note")");
    height += 20;
  }
  std::string out = svg_open(width, height, title);
  out += text_svg(kLeft, 18, headline, 13, "start", R"(font-weight="bold")");
  out += text_svg(kLeft, 34, source, 11, "start", R"(class="subtitle")");
  out += body + notes + "</svg>\n";
  return out;
}

}  // namespace rooflinectl
