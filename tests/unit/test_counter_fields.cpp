// The counter field tables (result/counter_fields.hpp) against the published schema
// (docs/report-schema.json), the JSON writer and reader, and the metric mapping.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "cupti/metrics.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "result/counter_fields.hpp"

namespace rooflinectl {
namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The committed H200 sweep, the report every test below edits.
nlohmann::ordered_json committed_report() {
  return nlohmann::ordered_json::parse(
      file_text(std::string(RFL_SOURCE_DIR) + "/docs/examples/h200-sweep.json"));
}

/// A distinct value for row `i`, exact in binary.
double row_value(size_t i) { return 0.25 + 0.125 * static_cast<double>(i); }

TEST(CounterFields, EveryKeyEndsInItsUnitAndEveryMemberHasOneRow) {
  const std::map<std::string, std::string> suffix = {{"bytes", "_bytes"},
                                                     {"s", "_s"},
                                                     {"Hz", "_hz"},
                                                     {"FLOP", "_flop"},
                                                     {"instructions", "_inst"},
                                                     {"fraction", "_fraction"}};
  std::set<std::string> keys;
  std::vector<CounterMember> members;
  for (const CounterField& f : kCounterFields) {
    const std::string key = f.json_key;
    ASSERT_EQ(suffix.count(f.unit), 1u) << key << ": unit " << f.unit;
    const std::string& end = suffix.at(f.unit);
    EXPECT_EQ(key.rfind(end), key.size() - end.size()) << key << " is in " << f.unit;
    EXPECT_TRUE(keys.insert(key).second) << key << " twice";
    EXPECT_EQ(std::count(members.begin(), members.end(), f.member), 0) << key << ": member twice";
    members.push_back(f.member);
    EXPECT_GT(f.per_metric_unit, 0) << key;
    EXPECT_NE(std::string(f.description), "") << key;
  }
  for (const DerivedCounterField& f : kDerivedCounterFields) {
    const std::string key = f.json_key;
    const std::string& end = suffix.at(f.unit);
    EXPECT_EQ(key.rfind(end), key.size() - end.size()) << key << " is in " << f.unit;
    EXPECT_TRUE(keys.insert(key).second) << key << " twice";
  }
  std::set<std::string> peak_keys;
  for (const CounterPeakField& f : kCounterPeakFields) {
    const std::string key = f.json_key;
    const std::string unit = f.unit;
    EXPECT_EQ(key.rfind("_per_cycle"), key.size() - 10) << key;
    EXPECT_EQ(unit.rfind("/cycle"), unit.size() - 6) << key << " is in " << unit;
    EXPECT_TRUE(peak_keys.insert(key).second) << key << " twice";
  }
}

// The schema's kernel_counters object lists exactly the tables' keys (and "name"); it requires
// the kRequired fields and the derived ones, never a key a reader may find absent.
TEST(CounterFields, SchemaListsEveryFieldAndRequiresThePresentOnes) {
  const nlohmann::json schema =
      nlohmann::json::parse(file_text(std::string(RFL_SOURCE_DIR) + "/docs/report-schema.json"));
  const nlohmann::json& object = schema.at("$defs").at("kernel_counters");
  std::set<std::string> properties;
  for (const auto& [key, value] : object.at("properties").items()) properties.insert(key);
  const std::vector<std::string> required_list = object.at("required");
  const std::set<std::string> required(required_list.begin(), required_list.end());

  std::set<std::string> expected_properties = {"name"};
  std::set<std::string> expected_required = {"name"};
  for (const CounterField& f : kCounterFields) {
    expected_properties.insert(f.json_key);
    if (f.presence == KeyPresence::kRequired) expected_required.insert(f.json_key);
    EXPECT_EQ(object.at("properties").at(f.json_key).at("$ref"), "#/$defs/non_negative_or_null")
        << f.json_key;
  }
  for (const DerivedCounterField& f : kDerivedCounterFields) {
    expected_properties.insert(f.json_key);
    expected_required.insert(f.json_key);
    EXPECT_EQ(object.at("properties").at(f.json_key).at("$ref"), "#/$defs/non_negative_or_null")
        << f.json_key;
  }
  EXPECT_EQ(properties, expected_properties);
  EXPECT_EQ(required, expected_required);
  EXPECT_EQ(required_list.size(), required.size()) << "a key required twice";
}

TEST(CounterFields, SchemaListsEveryPeakAndRequiresThePresentOnes) {
  const nlohmann::json schema =
      nlohmann::json::parse(file_text(std::string(RFL_SOURCE_DIR) + "/docs/report-schema.json"));
  const nlohmann::json& object = schema.at("$defs").at("counters").at("properties").at("peaks");
  std::set<std::string> properties;
  for (const auto& [key, value] : object.at("properties").items()) properties.insert(key);
  const std::vector<std::string> required_list = object.at("required");
  std::set<std::string> expected_properties;
  std::vector<std::string> expected_required;
  for (const CounterPeakField& f : kCounterPeakFields) {
    expected_properties.insert(f.json_key);
    if (f.presence == KeyPresence::kRequired) expected_required.emplace_back(f.json_key);
  }
  EXPECT_EQ(properties, expected_properties);
  EXPECT_EQ(required_list, expected_required);
}

// Every field is read into its member and written back under its key, in table order: the
// measured fields, then the derived ones.
TEST(CounterFields, ReaderAndWriterFollowTheTable) {
  nlohmann::ordered_json json = committed_report();
  nlohmann::ordered_json& total = json["points"][0]["counters"]["total"];
  for (size_t i = 0; i < std::size(kCounterFields); ++i) {
    total[kCounterFields[i].json_key] = row_value(i);
  }
  nlohmann::ordered_json& peaks = json["points"][0]["counters"]["peaks"];
  for (size_t i = 0; i < std::size(kCounterPeakFields); ++i) {
    peaks[kCounterPeakFields[i].json_key] = row_value(i);
  }
  const Report report = report_from_json_text(json.dump(), "edited");
  const KernelCounters& read = report.points.at(0).counters.total;
  for (size_t i = 0; i < std::size(kCounterFields); ++i) {
    const CounterField& f = kCounterFields[i];
    ASSERT_TRUE(read.*f.member) << f.json_key;
    EXPECT_EQ(*(read.*f.member), row_value(i)) << f.json_key;
  }
  const CounterPeaks& read_peaks = report.points.at(0).counters.peaks;
  for (size_t i = 0; i < std::size(kCounterPeakFields); ++i) {
    const CounterPeakField& f = kCounterPeakFields[i];
    ASSERT_TRUE(read_peaks.*f.member) << f.json_key;
    EXPECT_EQ(*(read_peaks.*f.member), row_value(i)) << f.json_key;
  }

  const nlohmann::ordered_json written = nlohmann::ordered_json::parse(report_to_json_text(report));
  const nlohmann::ordered_json& out = written["points"][0]["counters"]["total"];
  std::vector<std::string> keys;
  for (const auto& [key, value] : out.items()) keys.push_back(key);
  std::vector<std::string> expected = {"name"};
  for (const CounterField& f : kCounterFields) expected.emplace_back(f.json_key);
  for (const DerivedCounterField& f : kDerivedCounterFields) expected.emplace_back(f.json_key);
  EXPECT_EQ(keys, expected);
  for (size_t i = 0; i < std::size(kCounterFields); ++i) {
    EXPECT_EQ(out.at(kCounterFields[i].json_key).get<double>(), row_value(i));
  }
  for (const DerivedCounterField& f : kDerivedCounterFields) {
    EXPECT_EQ(out.at(f.json_key).get<double>(), *(read.*f.value)()) << f.json_key;
  }
  const nlohmann::ordered_json& out_peaks = written["points"][0]["counters"]["peaks"];
  std::vector<std::string> peak_keys;
  for (const auto& [key, value] : out_peaks.items()) peak_keys.push_back(key);
  std::vector<std::string> expected_peaks;
  for (const CounterPeakField& f : kCounterPeakFields) expected_peaks.emplace_back(f.json_key);
  EXPECT_EQ(peak_keys, expected_peaks);
  for (size_t i = 0; i < std::size(kCounterPeakFields); ++i) {
    EXPECT_EQ(out_peaks.at(kCounterPeakFields[i].json_key).get<double>(), row_value(i));
  }
}

// An absent key reads as null where the table allows it and is bad input naming the key
// otherwise; a negative value is bad input for every field.
TEST(CounterFields, AbsentAndNegativeValuesFollowThePresenceColumn) {
  for (const CounterField& f : kCounterFields) {
    nlohmann::ordered_json json = committed_report();
    json["points"][0]["counters"]["kernels"][0].erase(f.json_key);
    const std::string absent = json.dump();
    if (f.presence == KeyPresence::kMayBeAbsent) {
      const Report report = report_from_json_text(absent, "edited");
      EXPECT_FALSE(report.points.at(0).counters.kernels.at(0).*f.member) << f.json_key;
    } else {
      try {
        report_from_json_text(absent, "edited");
        ADD_FAILURE() << f.json_key << ": absent key accepted";
      } catch (const Error& e) {
        EXPECT_EQ(e.exit_code(), ExitCode::kBadInput);
        EXPECT_NE(std::string(e.what()).find(std::string("kernels[0].") + f.json_key),
                  std::string::npos)
            << e.what();
      }
    }
    json = committed_report();
    json["points"][0]["counters"]["kernels"][0][f.json_key] = -1.0;
    EXPECT_THROW(report_from_json_text(json.dump(), "edited"), Error) << f.json_key;
  }
}

TEST(CounterFields, AbsentPeaksFollowThePresenceColumn) {
  for (const CounterPeakField& f : kCounterPeakFields) {
    nlohmann::ordered_json json = committed_report();
    json["points"][0]["counters"]["peaks"].erase(f.json_key);
    const std::string absent = json.dump();
    if (f.presence == KeyPresence::kMayBeAbsent) {
      EXPECT_FALSE(report_from_json_text(absent, "edited").points.at(0).counters.peaks.*f.member)
          << f.json_key;
    } else {
      EXPECT_THROW(report_from_json_text(absent, "edited"), Error) << f.json_key;
    }
  }
}

// Each metric lands in its member (scaled to SI units; the peaks as read), and every table
// metric is collected.
TEST(CounterFields, EachMetricFillsItsMemberInSiUnits) {
  std::map<std::string, double> range;
  for (size_t i = 0; i < std::size(kCounterFields); ++i) {
    range[kCounterFields[i].metric] = 1000.0 + static_cast<double>(i);
  }
  for (size_t i = 0; i < std::size(kCounterPeakFields); ++i) {
    range[kCounterPeakFields[i].metric] = 2000.0 + static_cast<double>(i);
  }
  const CounterResult c = counters_from_ranges({range}, {"k"}, 1, "flushed");
  ASSERT_EQ(c.kernels.size(), 1u);
  const std::vector<std::string>& collected = counter_metric_names();
  for (size_t i = 0; i < std::size(kCounterFields); ++i) {
    const CounterField& f = kCounterFields[i];
    ASSERT_TRUE(c.kernels[0].*f.member) << f.json_key;
    EXPECT_DOUBLE_EQ(*(c.kernels[0].*f.member),
                     (1000.0 + static_cast<double>(i)) * f.per_metric_unit)
        << f.json_key;
    EXPECT_EQ(std::count(collected.begin(), collected.end(), f.metric), 1) << f.metric;
  }
  for (size_t i = 0; i < std::size(kCounterPeakFields); ++i) {
    const CounterPeakField& f = kCounterPeakFields[i];
    ASSERT_TRUE(c.peaks.*f.member) << f.json_key;
    EXPECT_EQ(*(c.peaks.*f.member), 2000.0 + static_cast<double>(i)) << f.json_key;
    EXPECT_EQ(std::count(collected.begin(), collected.end(), f.metric), 1) << f.metric;
  }
}

}  // namespace
}  // namespace rooflinectl
