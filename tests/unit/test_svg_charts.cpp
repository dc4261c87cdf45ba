// SVG charts: well-formed XML (parsed with tinyxml2), the expected axes, roofs and markers on the
// committed H200 sweep, labels that do not overlap, and the notes for points left out.
#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json_input.hpp"
#include "core/model_preset.hpp"
#include "core/operator_names.hpp"
#include "device/gpu_spec.hpp"
#include "io/json_reader.hpp"
#include "io/profile_json.hpp"
#include "model/layer_report.hpp"
#include "model/layer_time_split.hpp"
#include "render/svg/svg_common.hpp"
#include "render/svg/svg_layer_split.hpp"
#include "render/svg/svg_profile_roofline.hpp"
#include "render/svg/svg_roofline.hpp"
#include "render/svg/svg_throughput.hpp"
#include "render/table_writer.hpp"
#include "render/value_format.hpp"

namespace rooflinectl {
namespace {

const std::string kH200Report =
    std::string(RFL_SOURCE_DIR) + "/tests/unit/data/h200-sweep-first-run.json";

struct Parsed {
  tinyxml2::XMLDocument doc;
  explicit Parsed(const std::string& svg) {
    const tinyxml2::XMLError error = doc.Parse(svg.c_str(), svg.size());
    EXPECT_EQ(error, tinyxml2::XML_SUCCESS) << doc.ErrorStr();
  }
};

void visit(const tinyxml2::XMLElement* e,
           const std::function<void(const tinyxml2::XMLElement&)>& f) {
  for (; e; e = e->NextSiblingElement()) {
    f(*e);
    visit(e->FirstChildElement(), f);
  }
}

std::string attr(const tinyxml2::XMLElement& e, const char* name) {
  const char* v = e.Attribute(name);
  return v ? v : "";
}

std::vector<const tinyxml2::XMLElement*> with_class(const tinyxml2::XMLDocument& doc,
                                                    const std::string& cls) {
  std::vector<const tinyxml2::XMLElement*> out;
  visit(doc.RootElement(), [&](const tinyxml2::XMLElement& e) {
    if (attr(e, "class") == cls) out.push_back(&e);
  });
  return out;
}

std::string text_of(const tinyxml2::XMLElement& e) { return e.GetText() ? e.GetText() : ""; }

size_t count_if_attr(const std::vector<const tinyxml2::XMLElement*>& elements, const char* name,
                     const std::string& value) {
  size_t n = 0;
  for (const auto* e : elements) n += attr(*e, name) == value;
  return n;
}

// The estimated box of a label drawn with text-anchor start at (x, baseline y).
Box label_box(const tinyxml2::XMLElement& e) {
  const double x = e.DoubleAttribute("x"), y = e.DoubleAttribute("y"),
               font = e.DoubleAttribute("font-size");
  return Box{x, y - font * 0.95, x + text_width_px(text_of(e), font), y + font * 0.25};
}

TEST(SvgRoofline, H200SweepHasAxesRoofsRidgesAndOneMarkerPerPoint) {
  const Report report = load_report(kH200Report);
  Parsed svg(roofline_svg(report));
  const tinyxml2::XMLElement* root = svg.doc.RootElement();
  ASSERT_NE(root, nullptr);
  EXPECT_STREQ(root->Name(), "svg");
  EXPECT_STREQ(root->Attribute("xmlns"), "http://www.w3.org/2000/svg");

  const auto points = with_class(svg.doc, "point");
  EXPECT_EQ(points.size(), report.points.size());  // all 42 points have roofline data
  EXPECT_EQ(count_if_attr(points, "data-op", "flash_attention"), 7u);
  EXPECT_EQ(count_if_attr(points, "data-seq-len", "32768"), 6u);

  const auto roofs = with_class(svg.doc, "roof");
  EXPECT_EQ(roofs.size(), 2u);
  EXPECT_EQ(count_if_attr(roofs, "data-pipe", "tensor"), 1u);
  EXPECT_EQ(count_if_attr(roofs, "data-pipe", "fp32"), 1u);
  EXPECT_EQ(with_class(svg.doc, "roof-hbm").size(), 1u);
  EXPECT_EQ(with_class(svg.doc, "ridge").size(), 2u);
  const auto roof_labels = with_class(svg.doc, "roof-label");
  ASSERT_EQ(roof_labels.size(), 3u);
  EXPECT_EQ(text_of(*roof_labels[0]).rfind("HBM 4.8", 0), 0u) << text_of(*roof_labels[0]);

  const auto axis_titles = with_class(svg.doc, "axis-title");
  ASSERT_EQ(axis_titles.size(), 2u);
  EXPECT_NE(text_of(*axis_titles[0]).find("FLOP per byte"), std::string::npos);
  EXPECT_NE(text_of(*axis_titles[1]).find("TFLOP/s"), std::string::npos);
  std::vector<std::string> ticks;
  for (const auto* t : with_class(svg.doc, "tick")) ticks.push_back(text_of(*t));
  for (const char* expected : {"1", "10", "100", "1000", "10k"}) {
    EXPECT_NE(std::find(ticks.begin(), ticks.end(), expected), ticks.end()) << expected;
  }

  const auto title = with_class(svg.doc, "title");
  ASSERT_EQ(title.size(), 1u);
  EXPECT_NE(text_of(*title[0]).find("NVIDIA H200"), std::string::npos);
  const auto source = with_class(svg.doc, "roof-source");
  ASSERT_EQ(source.size(), 1u);
  EXPECT_NE(text_of(*source[0]).find("counters peak_sustained"), std::string::npos);
  EXPECT_TRUE(with_class(svg.doc, "omitted-note").empty());
}

TEST(SvgRoofline, SubtitleNamesTheRoofSourceUsed) {
  const Report report =
      load_report(std::string(RFL_SOURCE_DIR) + "/docs/examples/h200-sweep.json");  // datasheet
  Parsed svg(roofline_svg(report));
  const auto source = with_class(svg.doc, "roof-source");
  ASSERT_EQ(source.size(), 1u);
  const std::string text = text_of(*source[0]);
  EXPECT_NE(text.find("Roofs: datasheet"), std::string::npos) << text;
  EXPECT_EQ(text.find("clock measured per kernel"), std::string::npos) << text;
}

// The hierarchical roofline (Nsight Compute's): report_fixed.json has the measured L2 roof on
// every placed point and L2 bytes on eight of them (gelu L = 4096 predates the L2 roofline).
TEST(SvgRoofline, L2RoofAndHollowL2MarkersAreDrawn) {
  const Report report =
      load_report(std::string(RFL_SOURCE_DIR) + "/tests/unit/data/report_fixed.json");
  Parsed svg(roofline_svg(report));
  const auto l2_roof = with_class(svg.doc, "roof-l2");
  ASSERT_EQ(l2_roof.size(), 1u);
  EXPECT_FALSE(attr(*l2_roof[0], "stroke-dasharray").empty());  // told apart from the HBM slope
  // Above the HBM slope: both start at the left edge, the L2 line higher (smaller y).
  const auto hbm = with_class(svg.doc, "roof-hbm");
  ASSERT_EQ(hbm.size(), 1u);
  ASSERT_EQ(l2_roof[0]->DoubleAttribute("x1"), hbm[0]->DoubleAttribute("x1"));
  EXPECT_LT(l2_roof[0]->DoubleAttribute("y1"), hbm[0]->DoubleAttribute("y1"));
  std::vector<std::string> roof_labels;
  for (const auto* l : with_class(svg.doc, "roof-label")) roof_labels.push_back(text_of(*l));
  EXPECT_NE(std::find(roof_labels.begin(), roof_labels.end(), "L2 8.97 TB/s (measured)"),
            roof_labels.end());

  const auto hollow = with_class(svg.doc, "point-l2");
  const auto links = with_class(svg.doc, "l2-link");
  EXPECT_EQ(hollow.size(), 8u);
  EXPECT_EQ(links.size(), 8u);
  EXPECT_EQ(count_if_attr(hollow, "data-op", "flash_attention"), 4u);
  EXPECT_EQ(count_if_attr(hollow, "data-op", "gelu"), 1u);
  for (const auto* marker : hollow) EXPECT_EQ(attr(*marker, "fill"), "#FFFFFF");
  for (const auto* link : links) {
    // Same FLOP/s, so horizontal; every point of the fixture has I_l2 < I, so the hollow marker
    // sits left of its DRAM marker.
    EXPECT_EQ(link->DoubleAttribute("y1"), link->DoubleAttribute("y2"));
    EXPECT_GT(link->DoubleAttribute("x1"), link->DoubleAttribute("x2"));
  }
  EXPECT_EQ(with_class(svg.doc, "point").size(), 9u);  // the DRAM markers stay one per point

  const auto source = with_class(svg.doc, "roof-source");
  ASSERT_EQ(source.size(), 1u);
  EXPECT_NE(text_of(*source[0]).find("(L2: measured)"), std::string::npos) << text_of(*source[0]);
  const auto axis_titles = with_class(svg.doc, "axis-title");
  ASSERT_FALSE(axis_titles.empty());
  EXPECT_NE(text_of(*axis_titles[0]).find("of L2 traffic"), std::string::npos);
  EXPECT_EQ(with_class(svg.doc, "legend-marker-l2").size(), 1u);

  // A report without any L2 figure draws neither.
  Parsed plain(roofline_svg(load_report(kH200Report)));
  EXPECT_TRUE(with_class(plain.doc, "roof-l2").empty());
  EXPECT_TRUE(with_class(plain.doc, "point-l2").empty());
  EXPECT_TRUE(with_class(plain.doc, "legend-marker-l2").empty());
}

TEST(SvgRoofline, PointAboveItsRoofIsMarked) {
  Report report = load_report(kH200Report);
  report.points[3].roofline->above_roof = true;
  Parsed svg(roofline_svg(report));
  EXPECT_EQ(with_class(svg.doc, "above-roof").size(), 1u);
  const auto label = with_class(svg.doc, "above-roof-label");
  ASSERT_EQ(label.size(), 1u);
  EXPECT_EQ(text_of(*label[0]), "above roof");
  Parsed unflagged(roofline_svg(load_report(kH200Report)));
  EXPECT_TRUE(with_class(unflagged.doc, "above-roof").empty());
}

// FP8 GEMM points sit under the fp8 tensor roof (twice bf16's on Hopper): the chart draws it as a
// roof of its own and the bf16 tensor roof stays the 16-bit points' median, not a blend of both.
TEST(SvgRoofline, Fp8GemmPointsGetTheirOwnTensorRoof) {
  Report report = load_report(kH200Report);
  EXPECT_FALSE(chart_roofs(report).tensor_fp8_flop_per_s);
  constexpr double kBf16Roof = 989.5e12;
  size_t fp8_points = 0;
  for (PointResult& p : report.points) {
    if (!p.roofline || p.roofline->roof.pipe != Pipe::kTensor) continue;
    p.roofline->roof.peak_flop_per_s = kBf16Roof;
    if (p.op != "gemm") continue;
    p.shape.gemm_dtype = GemmDtype::kFp8E4m3;
    p.roofline->roof.peak_flop_per_s = 2.0 * kBf16Roof;
    ++fp8_points;
  }
  ASSERT_GT(fp8_points, 0u);
  const ChartRoofs roofs = chart_roofs(report);
  ASSERT_TRUE(roofs.tensor_flop_per_s && roofs.tensor_fp8_flop_per_s);
  EXPECT_DOUBLE_EQ(*roofs.tensor_flop_per_s, kBf16Roof);
  EXPECT_DOUBLE_EQ(*roofs.tensor_fp8_flop_per_s, 2.0 * kBf16Roof);
  Parsed svg(roofline_svg(report));
  const auto flat = with_class(svg.doc, "roof");
  EXPECT_EQ(count_if_attr(flat, "data-pipe", "tensor-fp8"), 1u);
  EXPECT_EQ(count_if_attr(flat, "data-pipe", "tensor"), 1u);
  EXPECT_EQ(with_class(svg.doc, "ridge").size(), 3u);
  bool fp8_label = false;
  for (const auto* label : with_class(svg.doc, "roof-label")) {
    fp8_label = fp8_label || text_of(*label).rfind("fp8 tensor-core roof ", 0) == 0;
  }
  EXPECT_TRUE(fp8_label);
  // The table's roofs line names both.
  if (!report.peaks) report.peaks.emplace();
  const std::string table = format_console_table(report);
  EXPECT_NE(table.find(" tensor " + format_si(kBf16Roof, "FLOP/s") + ", fp8 tensor " +
                       format_si(2.0 * kBf16Roof, "FLOP/s")),
            std::string::npos)
      << table;
}

TEST(SvgRoofline, H200SweepLabelsEveryOperatorsEndsWithoutOverlap) {
  Parsed svg(roofline_svg(load_report(kH200Report)));
  std::vector<const tinyxml2::XMLElement*> labels = with_class(svg.doc, "point-label");
  EXPECT_EQ(labels.size(), 12u);  // shortest and longest L of six operators
  const auto ridge_labels = with_class(svg.doc, "ridge-label");
  EXPECT_EQ(ridge_labels.size(), 2u);
  labels.insert(labels.end(), ridge_labels.begin(), ridge_labels.end());
  for (size_t i = 0; i < labels.size(); ++i) {
    for (size_t j = i + 1; j < labels.size(); ++j) {
      EXPECT_FALSE(label_box(*labels[i]).overlaps(label_box(*labels[j])))
          << text_of(*labels[i]) << " and " << text_of(*labels[j]);
    }
  }
}

TEST(SvgRoofline, PointsWithoutRooflineAreLeftOutWithANote) {
  Report report = load_report(kH200Report);
  report.points[3].roofline.reset();
  report.points[3].roofline_null_reason = "counters disabled (--no-counters)";
  report.points[5].op = "op<&>";  // names are escaped, so the file still parses
  Parsed svg(roofline_svg(report));
  EXPECT_EQ(with_class(svg.doc, "point").size(), report.points.size() - 1);
  const auto note = with_class(svg.doc, "omitted-note");
  ASSERT_EQ(note.size(), 1u);
  EXPECT_NE(text_of(*note[0]).find(
                "1 point without roofline data: naive_attention L=4096: counters disabled"),
            std::string::npos)
      << text_of(*note[0]);
}

TEST(SvgRoofline, EmptyReportStillParses) {
  Parsed svg(roofline_svg(Report{}));
  EXPECT_TRUE(with_class(svg.doc, "point").empty());
  EXPECT_TRUE(with_class(svg.doc, "roof").empty());
}

TEST(SvgThroughput, H200SweepPanelsAndSpeedups) {
  const Report report = load_report(kH200Report);
  Parsed svg(throughput_svg(report));
  const auto points = with_class(svg.doc, "point");
  // naive, flash and GEMM in TFLOP/s; GELU, LayerNorm and decode in TB/s; flash and naive tokens/s.
  EXPECT_EQ(count_if_attr(points, "data-panel", "tflops"), 21u);
  EXPECT_EQ(count_if_attr(points, "data-panel", "tbps"), 21u);
  EXPECT_EQ(count_if_attr(points, "data-panel", "tokens"), 14u);
  size_t flash_in_tflops = 0;
  for (const auto* p : points)
    flash_in_tflops +=
        attr(*p, "data-op") == "flash_attention" && attr(*p, "data-panel") == "tflops";
  EXPECT_EQ(flash_in_tflops, 7u);
  const auto speedups = with_class(svg.doc, "speedup-label");
  ASSERT_EQ(speedups.size(), 7u);
  EXPECT_EQ(text_of(*speedups[0]), "1.74×");          // 35.76 µs / 20.61 µs at L = 512
  EXPECT_EQ(with_class(svg.doc, "roof").size(), 1u);  // the HBM roof of the TB/s panel
  EXPECT_EQ(with_class(svg.doc, "axis-title").size(), 6u);
  // The tensor roof lies above the TFLOP/s axis here: named as off scale, not drawn.
  const auto off_scale = with_class(svg.doc, "roof-off-scale");
  ASSERT_EQ(off_scale.size(), 1u);
  EXPECT_EQ(text_of(*off_scale[0]).rfind("tensor roof ", 0), 0u) << text_of(*off_scale[0]);
}

TEST(SvgThroughput, TensorRoofInsideTheAxisIsDrawn) {
  Report report = load_report(kH200Report);
  double highest = 0;  // the fastest tensor point: a roof there is inside the TFLOP/s axis
  for (const auto& p : report.points) {
    if (p.roofline && p.roofline->roof.pipe == Pipe::kTensor)
      highest = std::max(highest, p.roofline->achieved_flop_per_s);
  }
  for (auto& p : report.points) {
    if (p.roofline && p.roofline->roof.pipe == Pipe::kTensor)
      p.roofline->roof.peak_flop_per_s = highest;
  }
  Parsed svg(throughput_svg(report));
  EXPECT_EQ(with_class(svg.doc, "roof").size(), 2u);  // tensor (TFLOP/s) and HBM (TB/s)
  EXPECT_TRUE(with_class(svg.doc, "roof-off-scale").empty());
}

TEST(SvgThroughput, EmptyReportStillParses) {
  Parsed svg(throughput_svg(Report{}));
  EXPECT_TRUE(with_class(svg.doc, "point").empty());
}

TEST(LabelPlacer, NeverReturnsOverlappingOrOutOfBoundsBoxes) {
  const Box bounds{0, 0, 200, 100};
  LabelPlacer placer(bounds);
  placer.reserve(Box{90, 40, 110, 60});
  size_t placed = 0;
  for (int i = 0; i < 60; ++i) {
    const auto box = placer.place(20.0 + (i * 37) % 160, 10.0 + (i * 53) % 80, 30, 12);
    if (!box) continue;
    ++placed;
    EXPECT_TRUE(box->inside(bounds));
    EXPECT_FALSE(box->overlaps(Box{90, 40, 110, 60}));
  }
  const auto& boxes = placer.placed();
  EXPECT_EQ(boxes.size(), placed);
  EXPECT_GT(placed, 10u);
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (size_t j = i + 1; j < boxes.size(); ++j) EXPECT_FALSE(boxes[i].overlaps(boxes[j]));
  }
}

TEST(SvgCommon, TicksAndScales) {
  EXPECT_EQ(decade_ticks(0.2, 5e4), (std::vector<double>{1, 10, 100, 1000, 10000}));
  EXPECT_EQ(nice_linear_ticks(4.2, 5), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_DOUBLE_EQ(nice_floor_125(3.9e11), 2e11);
  EXPECT_DOUBLE_EQ(nice_ceil_125(2.1e15), 5e15);
  EXPECT_EQ(format_tick(10000), "10k");
  EXPECT_EQ(format_tick(1000), "1000");
  EXPECT_EQ(format_tick(0.1), "0.1");
  const Scale s = Scale::log10(1, 1000, 0, 300);
  EXPECT_DOUBLE_EQ(s(10), 100);
  EXPECT_EQ(xml_escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
  EXPECT_EQ(lighten("#000000", 0.5), "#808080");
}

// ---- The roofline of a profile report (svg_profile_roofline) ----

const std::string kH200Profile =
    std::string(RFL_SOURCE_DIR) + "/docs/examples/h200-profile-block.json";

std::vector<std::string> texts_with_class(const tinyxml2::XMLDocument& doc,
                                          const std::string& cls) {
  std::vector<std::string> out;
  for (const auto* e : with_class(doc, cls)) out.push_back(text_of(*e));
  return out;
}

TEST(SvgProfileRoofline, OneMarkerPerPlacedKernelWithAreaProportionalToShare) {
  const ProfileReport report = load_profile_report(kH200Profile);
  Parsed svg(profile_roofline_svg(report));
  const auto markers = with_class(svg.doc, "kernel");
  std::vector<std::string> ranks;
  for (size_t i = 0; i < report.kernels.size(); ++i) {
    if (has_placement(report.kernels[i])) ranks.push_back(std::to_string(i + 1));
  }
  ASSERT_EQ(ranks, (std::vector<std::string>{"1", "2", "3", "4", "6", "7", "13"}));
  ASSERT_EQ(markers.size(), ranks.size());
  for (const auto& rank : ranks) EXPECT_EQ(count_if_attr(markers, "data-rank", rank), 1u) << rank;
  // Drawn largest first; every share here is above the minimum radius, so r² / share is one
  // constant and the radii fall as the shares do.
  double previous_r = 1e9;
  for (const auto* m : markers) {
    const double r = m->DoubleAttribute("r"), share = m->DoubleAttribute("data-share");
    EXPECT_LE(r, previous_r);
    previous_r = r;
    // r is written with two decimals: 1% covers the rounding of the smallest marker (r = 6.3).
    EXPECT_NEAR(r * r / share, 48.0 * 48.0, 0.01 * 48.0 * 48.0) << attr(*m, "data-rank");
  }
  const auto first = std::find_if(markers.begin(), markers.end(),
                                  [](const auto* m) { return attr(*m, "data-rank") == "1"; });
  EXPECT_EQ(attr(**first, "data-name"), report.kernels[0].name);
  EXPECT_EQ(with_class(svg.doc, "roof").size(), 1u);
  EXPECT_EQ(with_class(svg.doc, "roof-hbm").size(), 1u);
  EXPECT_EQ(with_class(svg.doc, "roof-l2").size(), 0u);  // the datasheet gives no L2 roof
  EXPECT_EQ(with_class(svg.doc, "ridge").size(), 1u);
  EXPECT_EQ(texts_with_class(svg.doc, "bases"),
            (std::vector<std::string>{
                "DRAM bytes: read + in-window write + write-back of the isolated launch; FLOPs: "
                "bf16 tensor FLOPs (single-pass mode counts no SIMT FLOPs)"}));
  const auto source = texts_with_class(svg.doc, "roof-source");
  ASSERT_EQ(source.size(), 1u);
  EXPECT_NE(source[0].find("datasheet (the report's peaks)"), std::string::npos) << source[0];
  EXPECT_NE(source[0].find("no L2 roof: datasheets give no L2 bandwidth"), std::string::npos);
  EXPECT_EQ(with_class(svg.doc, "placed-kernel").size(), 7u);
}

TEST(SvgProfileRoofline, KernelsWithoutAPlacementAreListedWithShareAndBandwidth) {
  const ProfileReport report = load_profile_report(kH200Profile);
  Parsed svg(profile_roofline_svg(report));
  const auto listed = texts_with_class(svg.doc, "unplaced-kernel");
  ASSERT_EQ(listed.size(), 16u);
  // Each line as unplaced_kernel_lines says, cut to the width of the chart.
  const std::vector<std::string> lines = unplaced_kernel_lines(report);
  ASSERT_EQ(lines.size(), listed.size());
  for (size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(listed[i], truncated_text(lines[i], 135));
  // The GELU of the MLP: 5.5% of the GPU time, 256 MiB in 89.2 µs.
  EXPECT_EQ(listed[0].rfind("#5  5.5%  2.73 TB/s  void at::native::vectorized_elementwise", 0), 0u)
      << listed[0];
  EXPECT_NE(listed[0].find("memory-bound, DRAM at 57%"), std::string::npos) << listed[0];
  for (const auto& line : listed) EXPECT_NE(line.find(" TB/s  "), std::string::npos) << line;
}

TEST(SvgProfileRoofline, NamesAreEscapedAndTheL2RoofDrawnWhenThePeaksHaveOne) {
  ProfileReport report = load_profile_report(kH200Profile);
  const std::string placed_name = "gemm<a&b, \"c\">'d'";
  const std::string unplaced_name = "copy<x<y>> & <z>";
  report.kernels[0].name = placed_name;
  report.kernels[4].name = unplaced_name;
  report.peaks->datasheet.l2.value = 1.2e13;
  const std::string text = profile_roofline_svg(report);
  EXPECT_EQ(text.find(placed_name), std::string::npos);
  EXPECT_EQ(text.find("<x<y>>"), std::string::npos);
  Parsed svg(text);
  const auto markers = with_class(svg.doc, "kernel");
  EXPECT_EQ(count_if_attr(markers, "data-name", placed_name), 1u);
  const auto listed = texts_with_class(svg.doc, "unplaced-kernel");
  ASSERT_FALSE(listed.empty());
  EXPECT_NE(listed[0].find(unplaced_name), std::string::npos) << listed[0];
  EXPECT_EQ(with_class(svg.doc, "roof-l2").size(), 1u);
}

TEST(SvgProfileRoofline, WithoutPlacementsEveryKernelIsListed) {
  ProfileReport report = load_profile_report(kH200Profile);
  for (auto& k : report.kernels) k.roofline.reset();
  Parsed svg(profile_roofline_svg(report));
  EXPECT_TRUE(with_class(svg.doc, "kernel").empty());
  EXPECT_EQ(with_class(svg.doc, "no-placement").size(), 1u);
  EXPECT_EQ(with_class(svg.doc, "unplaced-kernel").size(), 23u);
  EXPECT_EQ(with_class(svg.doc, "roof").size(), 1u);  // the roofs still come from the peaks
}

TEST(SvgProfileRoofline, ShortKernelNames) {
  EXPECT_EQ(short_kernel_name("void at::native::vectorized_elementwise_kernel<8, at::native::"
                              "GeluCUDAKernelImpl>(int, float*)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(short_kernel_name("(anonymous namespace)::scale_kernel(float const*, float*)"),
            "scale_kernel");
  EXPECT_EQ(short_kernel_name("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT", 12),
            "nvjet_sm90_…");
  EXPECT_EQ(short_kernel_name("gemm()"), "gemm");
}

}  // namespace
}  // namespace rooflinectl

namespace rooflinectl {
namespace {

TEST(SvgStyle, EveryOperatorHasItsOwnColourAndMarker) {
  std::set<std::pair<std::string, MarkerShape>> styles;
  for (size_t i = 0; i < kOperatorNames.size(); ++i) {
    const SeriesStyle style = operator_style(kOperatorNames[i], 0);
    styles.insert({style.colour, style.shape});
  }
  EXPECT_EQ(styles.size(), kOperatorNames.size());
  // The first six keep the styles their charts have always had.
  EXPECT_EQ(operator_style("naive_attention", 5).colour, "#D55E00");
  EXPECT_EQ(operator_style("decode_attention", 0).shape, MarkerShape::kPentagon);
}

}  // namespace
}  // namespace rooflinectl

namespace rooflinectl {
namespace {

LayerReport analytic_decode_layer() {
  return build_layer_report(find_model_preset("llama-3.1-8b"), find_gpu_spec("h100-sxm"),
                            LayerPhase::kDecode, {1, 64}, {512, 4096, 32768}, KvDtype::kAuto);
}

// Context lengths are named in K = 1024 ("128K context"), not as SI thousands ("131.072k").
TEST(SvgLayerSplit, LengthTicksInKOf1024) {
  EXPECT_EQ(length_tick(512), "512");
  EXPECT_EQ(length_tick(1000), "1000");
  EXPECT_EQ(length_tick(1024), "1K");
  EXPECT_EQ(length_tick(16384), "16K");
  EXPECT_EQ(length_tick(131072), "128K");
  EXPECT_EQ(length_tick(4352), "4352");  // 4.25 × 1024: in full
  const Parsed svg(layer_split_svg(layer_time_split(analytic_decode_layer())));
  std::vector<std::string> ticks;
  for (const auto* t : with_class(svg.doc, "tick")) ticks.push_back(text_of(*t));
  EXPECT_NE(std::find(ticks.begin(), ticks.end(), "32K"), ticks.end());
  EXPECT_EQ(std::find(ticks.begin(), ticks.end(), "32.768k"), ticks.end());
}

// Each bar stacks every operator of the layer, in order, to 100% of the layer time.
TEST(SvgLayerSplit, OneBarPerBatchAndLengthStackedToTheWholeLayer) {
  const LayerReport report = analytic_decode_layer();
  const Parsed svg(layer_split_svg(layer_time_split(report)));
  const auto segments = with_class(svg.doc, "segment");
  const size_t ops = report.points.front().ops.size();
  ASSERT_EQ(segments.size(), 2 * 3 * ops);
  std::map<std::pair<std::string, std::string>, double> sums;
  for (const auto* s : segments) {
    sums[{attr(*s, "data-batch"), attr(*s, "data-length")}] += s->DoubleAttribute("data-share");
  }
  ASSERT_EQ(sums.size(), 6u);
  for (const auto& [bar, sum] : sums) EXPECT_NEAR(sum, 1.0, 1e-3) << bar.first << " " << bar.second;
  // The bottom segment is the input norm and the top one the down projection.
  EXPECT_EQ(attr(*segments.front(), "data-op"), "input_norm");
  EXPECT_EQ(attr(*segments[ops - 1], "data-op"), "ffn_down");
  // The attention share grows with the context (the KV cache read), as the datasheet says.
  double attention_512 = 0, attention_32768 = 0;
  for (const auto* s : segments) {
    if (attr(*s, "data-op") != "attention" || attr(*s, "data-batch") != "64") continue;
    if (attr(*s, "data-length") == "512") attention_512 = s->DoubleAttribute("data-share");
    if (attr(*s, "data-length") == "32768") attention_32768 = s->DoubleAttribute("data-share");
  }
  EXPECT_GT(attention_32768, 2 * attention_512);
  EXPECT_EQ(with_class(svg.doc, "layer-time").size(), 6u);
  EXPECT_TRUE(with_class(svg.doc, "note").empty());
}

// Measured, the bars are the measured times, and a point whose layer time is unknown gets no
// bar but a note naming it.
TEST(SvgLayerSplit, MeasuredBarsAndAnUnmeasuredPointNamed) {
  LayerReport report = analytic_decode_layer();
  LayerMeasurement measurement;
  measurement.device_name = "NVIDIA H100 80GB HBM3";
  for (const LayerPrediction& p : report.points) {
    MeasuredLayerPoint point;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      LayerOperatorMeasurement op;
      op.time_s = i == 2 ? 3e-6 : 1e-6;  // attention three times any other operator
      point.ops.push_back(op);
    }
    point.layer_time_s = 1e-6 * static_cast<double>(p.ops.size() + 2);
    measurement.points.push_back(point);
  }
  measurement.points[1].layer_time_s.reset();
  report.measurement = measurement;
  const std::string text = layer_split_svg(layer_time_split(report));
  const Parsed svg(text);
  const auto segments = with_class(svg.doc, "segment");
  const size_t ops = report.points.front().ops.size();
  EXPECT_EQ(segments.size(), 5 * ops);
  EXPECT_EQ(attr(*segments[2], "data-op"), "attention");
  EXPECT_NEAR(segments[2]->DoubleAttribute("data-share"), 3.0 / static_cast<double>(ops + 2), 1e-3);
  const auto notes = with_class(svg.doc, "note");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(text_of(*notes.front()).find("B = 1, context = 4096"), std::string::npos);
  EXPECT_NE(text.find("measured median times on NVIDIA H100 80GB HBM3"), std::string::npos);
}

// The committed measured H100 decode layer, read back from its JSON: every (batch, context) a
// bar, the measured basis and device named, the same split as the layer computed.
TEST(SvgLayerSplit, SavedMeasuredLayerReadsBack) {
  const std::string path = std::string(RFL_SOURCE_DIR) + "/docs/examples/h100-layer-decode.json";
  const LayerTimeSplit split =
      layer_time_split_from_json(parse_json_text(read_text_file(path, "report"), path), path);
  EXPECT_TRUE(split.decode);
  EXPECT_EQ(split.basis, "measured median times");
  EXPECT_EQ(split.device, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(split.bars.size(), 27u);  // B 1, 16, 64 × 9 contexts
  EXPECT_EQ(split.layers, 32);
  EXPECT_EQ(split.roles.front(), "input_norm");
  EXPECT_EQ(split.roles.back(), "ffn_down");
  for (const LayerSplitBar& bar : split.bars) {
    ASSERT_TRUE(bar.layer_s.has_value());
    double sum = 0;
    for (const std::optional<double>& s : bar.op_s) {
      ASSERT_TRUE(s.has_value());
      sum += *s;
    }
    EXPECT_NEAR(sum, *bar.layer_s, 1e-9 * *bar.layer_s);
  }
  EXPECT_EQ(with_class(Parsed(layer_split_svg(split)).doc, "segment").size(),
            27 * split.roles.size());
  // A document without what the chart needs is refused, naming the key.
  EXPECT_THROW(layer_time_split_from_json(nlohmann::json::object({{"basis", "measured"}}), "x"),
               Error);
  nlohmann::json older = parse_json_text(read_text_file(path, "report"), path);
  older["layer_schema_version"] = 1;
  EXPECT_THROW(layer_time_split_from_json(older, "older"), Error);
}

}  // namespace
}  // namespace rooflinectl
