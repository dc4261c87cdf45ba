// Per-sample clocks in the records: the JSON round trip of timing.sample_clocks and of the clock
// lock, reports written before them, edited reports, the compare note on throttled samples and
// the `report` footer line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "compare/compare.hpp"
#include "core/error.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "render/compare_writer.hpp"
#include "render/markdown_writer.hpp"
#include "render/table_writer.hpp"
#include "result/clock_notes.hpp"

namespace rooflinectl {
namespace {

constexpr const char* kCommittedReport = RFL_SOURCE_DIR "/docs/examples/h200-sweep.json";

// `count` readings at `mhz`, the ones in [first_throttled, first_throttled + throttled) with a
// SW power cap.
std::vector<ClockReading> readings(size_t count, double mhz, size_t first_throttled = 0,
                                   size_t throttled = 0) {
  std::vector<ClockReading> out;
  for (size_t i = 0; i < count; ++i) {
    const bool capped = i >= first_throttled && i < first_throttled + throttled;
    out.push_back(make_clock_reading(
        mhz * 1e6, 3201e6,
        capped ? kClockEventSwPowerCap | kClockEventGpuIdle : kClockEventGpuIdle));
  }
  return out;
}

PointResult& point_at(Report& report, const std::string& op, int64_t seq_len) {
  for (auto& p : report.points) {
    if (p.op == op && p.shape.seq_len == seq_len) return p;
  }
  throw std::runtime_error("no point " + op);
}

// The committed report with clocks on every timed point (1980 MHz, none throttled).
Report report_with_clocks() {
  Report report = load_report(kCommittedReport);
  for (auto& p : report.points) {
    if (p.timing) p.timing->sample_clocks = readings(p.timing->samples_s.size(), 1980);
  }
  return report;
}

TEST(SampleClocks, OldReportsReadAsNullWithTheReason) {
  const Report report = load_report(kCommittedReport);
  size_t timed = 0;
  for (const auto& p : report.points) {
    if (!p.timing) continue;
    ++timed;
    EXPECT_FALSE(p.timing->sample_clocks.has_value());
    EXPECT_EQ(p.timing->sample_clocks_null_reason,
              "report written before per-sample clocks were recorded");
    EXPECT_FALSE(p.timing->throttled_samples().has_value());
  }
  EXPECT_GT(timed, 0u);
  EXPECT_FALSE(report.device.clock_lock.has_value());
  EXPECT_TRUE(report.config.lock_clocks.empty());
  // Written again, the reason is kept.
  const nlohmann::json j = nlohmann::json::parse(report_to_json_text(report));
  const auto& timing = j["points"][0]["timing"];
  EXPECT_TRUE(timing["sample_clocks"].is_null());
  EXPECT_EQ(timing["sample_clocks_null_reason"], kSampleClocksAbsentReason);
  EXPECT_TRUE(timing["throttled_samples"].is_null());
  // No footer line without clocks.
  EXPECT_FALSE(sample_clocks_summary(report).has_value());
  EXPECT_EQ(format_console_table(report).find("clocks (NVML"), std::string::npos);
}

TEST(SampleClocks, RoundTripExactlyWithTheFieldNamesOfTheSchema) {
  Report report = report_with_clocks();
  PointResult& gelu = point_at(report, "gelu", 4096);
  const size_t n = gelu.timing->samples_s.size();
  gelu.timing->sample_clocks = readings(n, 1755, 2, 3);
  report.config.lock_clocks = "base";
  report.device.clock_lock =
      ClockLockRecord{"base", 1755e6, "nvmlDeviceGetDefaultApplicationsClock(NVML_CLOCK_GRAPHICS)",
                      "reset with nvmlDeviceResetGpuLockedClocks after the last point"};

  const std::string text = report_to_json_text(report);
  const Report back = report_from_json_text(text, "memory");
  EXPECT_EQ(report_to_json_text(back), text);

  const PointResult& g = point_at(const_cast<Report&>(back), "gelu", 4096);
  ASSERT_TRUE(g.timing->sample_clocks.has_value());
  ASSERT_EQ(g.timing->sample_clocks->size(), n);
  EXPECT_EQ((*g.timing->sample_clocks)[2].sm_clock_hz, 1755e6);
  EXPECT_EQ((*g.timing->sample_clocks)[2].memory_clock_hz, 3201e6);
  EXPECT_EQ((*g.timing->sample_clocks)[2].clock_event_reasons, 0x5u);
  EXPECT_TRUE((*g.timing->sample_clocks)[2].power_or_thermal_throttled);
  EXPECT_FALSE((*g.timing->sample_clocks)[0].power_or_thermal_throttled);
  EXPECT_EQ(g.timing->throttled_samples(), std::optional<size_t>(3));
  ASSERT_TRUE(back.device.clock_lock.has_value());
  EXPECT_EQ(back.device.clock_lock->sm_clock_hz, 1755e6);
  EXPECT_EQ(back.device.clock_lock->restore, report.device.clock_lock->restore);
  EXPECT_EQ(back.config.lock_clocks, "base");

  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["config"]["lock_clocks"], "base");
  EXPECT_EQ(j["device"]["clock_lock"]["setting"], "base");
  EXPECT_EQ(j["device"]["clock_lock"]["sm_clock_hz"], 1755e6);
  for (const auto& p : j["points"]) {
    if (p["op"] != "gelu" || p["shape"]["seq_len"] != 4096) continue;
    const auto& reading = p["timing"]["sample_clocks"][2];
    EXPECT_EQ(reading["sm_clock_hz"], 1755e6);
    EXPECT_EQ(reading["memory_clock_hz"], 3201e6);
    EXPECT_EQ(reading["clock_event_reasons"], 5);
    EXPECT_EQ(reading["throttled"], true);
    EXPECT_EQ(p["timing"]["throttled_samples"], 3);
    EXPECT_FALSE(p["timing"].contains("sample_clocks_null_reason"));
  }
}

TEST(SampleClocks, NotRecordedKeepsItsReason) {
  Report report = load_report(kCommittedReport);
  report.points[0].timing->sample_clocks_null_reason =
      "not recorded: NVML unavailable: libnvidia-ml.so.1 could not be loaded";
  const Report back = report_from_json_text(report_to_json_text(report), "memory");
  EXPECT_FALSE(back.points[0].timing->sample_clocks.has_value());
  EXPECT_EQ(back.points[0].timing->sample_clocks_null_reason,
            report.points[0].timing->sample_clocks_null_reason);
}

// An edited report: the derived flags are recomputed from the bits (a throttled sample cannot be
// hidden by writing false), a wrong count or an impossible clock is bad input.
TEST(SampleClocks, EditedReportsAreRecomputedOrRefused) {
  const std::string text = report_to_json_text(report_with_clocks());
  nlohmann::json j = nlohmann::json::parse(text);
  auto& timing = j["points"][0]["timing"];
  timing["sample_clocks"][0]["clock_event_reasons"] = 0x40;  // HW thermal
  timing["sample_clocks"][0]["throttled"] = false;
  timing["throttled_samples"] = 0;
  const Report back = report_from_json_text(j.dump(), "edited");
  EXPECT_TRUE((*back.points[0].timing->sample_clocks)[0].power_or_thermal_throttled);
  EXPECT_EQ(back.points[0].timing->throttled_samples(), std::optional<size_t>(1));

  auto refused = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& key) {
    nlohmann::json e = nlohmann::json::parse(text);
    edit(e["points"][0]["timing"]);
    try {
      report_from_json_text(e.dump(), "edited");
      ADD_FAILURE() << "accepted an edit of " << key;
    } catch (const Error& error) {
      EXPECT_EQ(error.exit_code(), ExitCode::kBadInput);
      EXPECT_NE(std::string(error.what()).find(key), std::string::npos) << error.what();
    }
  };
  refused([](nlohmann::json& t) { t["sample_clocks"].erase(0); }, "sample_clocks");
  refused([](nlohmann::json& t) { t["sample_clocks"][1]["sm_clock_hz"] = 0; }, "sm_clock_hz");
  refused([](nlohmann::json& t) { t["sample_clocks"][1]["memory_clock_hz"] = -1; },
          "memory_clock_hz");
  refused([](nlohmann::json& t) { t["sample_clocks"][1]["clock_event_reasons"] = -4; },
          "clock_event_reasons");
  refused([](nlohmann::json& t) { t["sample_clocks"][1].erase("throttled"); }, "throttled");
}

TEST(SampleClocks, ConfigLockClocksOtherThanBaseIsRefused) {
  nlohmann::json j = nlohmann::json::parse(report_to_json_text(report_with_clocks()));
  j["config"]["lock_clocks"] = "turbo";
  EXPECT_THROW(report_from_json_text(j.dump(), "edited"), Error);
}

// ---------------------------------------------------------------------------------------------
// compare: a note on the point whose samples were throttled, on either side, never a verdict.

TEST(SampleClocks, CompareNotesThrottledSamplesOfEitherSide) {
  const Report base = report_with_clocks();
  Report current = report_with_clocks();
  PointResult& gelu = point_at(current, "gelu", 4096);
  const size_t n = gelu.timing->samples_s.size();
  gelu.timing->sample_clocks = readings(n, 1755, 0, 3);
  Report base_throttled = report_with_clocks();
  point_at(base_throttled, "gemm", 1024).timing->sample_clocks =
      readings(point_at(base_throttled, "gemm", 1024).timing->samples_s.size(), 1700, 1, 1);

  const CompareResult clean = compare_reports(base, report_with_clocks(), CompareOptions{});
  for (const auto& p : clean.points) EXPECT_TRUE(p.throttle_note.empty()) << p.throttle_note;

  const CompareResult r = compare_reports(base_throttled, current, CompareOptions{});
  std::string gelu_note;
  std::string gemm_note;
  for (const auto& p : r.points) {
    if (p.key.op == "gelu" && p.key.shape.seq_len == 4096) {
      gelu_note = p.throttle_note;
    } else if (p.key.op == "gemm" && p.key.shape.seq_len == 1024) {
      gemm_note = p.throttle_note;
    } else {
      EXPECT_TRUE(p.throttle_note.empty()) << p.key.label() << ": " << p.throttle_note;
    }
  }
  EXPECT_EQ(gelu_note, fmt::format("new: 3 of {} samples throttled (SW power cap)", n));
  EXPECT_EQ(gemm_note,
            fmt::format("base: 1 of {} samples throttled (SW power cap)",
                        point_at(base_throttled, "gemm", 1024).timing->samples_s.size()));
  // The same verdicts as without the clocks: the note decides nothing.
  const CompareResult without = compare_reports(load_report(kCommittedReport),
                                                load_report(kCommittedReport), CompareOptions{});
  ASSERT_EQ(without.points.size(), r.points.size());
  for (size_t i = 0; i < r.points.size(); ++i) {
    EXPECT_EQ(r.points[i].verdict, without.points[i].verdict) << r.points[i].key.label();
  }

  const std::string table = format_compare_table(r);
  EXPECT_NE(table.find("throttled: gelu gelu_v2_full_grid L=4096"), std::string::npos) << table;
  EXPECT_NE(table.find(gelu_note), std::string::npos);
  EXPECT_NE(format_compare_markdown(r).find("- ⚠️ throttled: `gemm "), std::string::npos);
  const nlohmann::json j = compare_to_json(r);
  bool found = false;
  for (const auto& p : j["points"]) {
    if (p["op"] == "gelu" && p["shape"]["seq_len"] == 4096) {
      EXPECT_EQ(p["throttle_note"], gelu_note);
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

// ---------------------------------------------------------------------------------------------
// report: one footer line, only when recorded.

TEST(SampleClocks, ReportFooterGivesTheMedianClockAndTheThrottledCount) {
  Report report = report_with_clocks();
  PointResult& gelu = point_at(report, "gelu", 4096);
  const size_t n = gelu.timing->samples_s.size();
  gelu.timing->sample_clocks = readings(n, 1500, 0, 2);
  size_t samples = 0;
  size_t points = 0;
  for (const auto& p : report.points) {
    if (p.timing) {
      samples += p.timing->samples_s.size();
      ++points;
    }
  }
  const auto line = sample_clocks_summary(report);
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(*line, fmt::format("clocks (NVML, after each timed sample): SM median 1980 MHz "
                               "(1500..1980 MHz), memory median 3201 MHz, over {} samples of {} "
                               "points; 2 samples power- or thermal-throttled (SW power cap)",
                               samples, points));
  EXPECT_NE(format_console_table(report).find(*line + "\n"), std::string::npos);
  EXPECT_NE(format_markdown_report(report).find("- " + *line + ".\n"), std::string::npos);

  report.device.clock_lock = ClockLockRecord{"base", 1755e6, "fake", "reset"};
  EXPECT_NE(sample_clocks_summary(report)->find("; SM clocks locked to 1755 MHz (base)"),
            std::string::npos);
}

}  // namespace
}  // namespace rooflinectl
