// The `rooflinectl peaks` cache: directory rules, file name from the key, the JSON round trip,
// and refusing entries that do not belong to this GPU; plus the sweep report's "peaks" block.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "io/peaks_json.hpp"
#include "peaks/bench/peak_plan.hpp"
#include "peaks/peak_sources.hpp"
#include "peaks/peaks_cache.hpp"
#include "render/peaks_table.hpp"
#include "result/peak_set.hpp"

namespace rooflinectl {
namespace {

namespace fs = std::filesystem;

/// A fresh directory under the system temp dir, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("rfl_peaks_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

PeaksKey h200_key() {
  return PeaksKey{"GPU-0123abcd-4567-89ef-0123-456789abcdef", "580.159.04", 1.98e9};
}

PeaksRecord sample_record() {
  PeaksRecord r;
  r.key = h200_key();
  r.device_name = "NVIDIA H200";
  r.cc_major = 9;
  r.cc_minor = 0;
  r.sm_count = 132;
  r.l2_bytes = 62914560;
  r.tool_version = "0.1.0";
  r.timestamp_utc = "2026-11-30T10:00:00Z";
  PeakBenchmarkRecord copy;
  copy.name = "dram_copy";
  copy.kind = CeilingKind::kDram;
  copy.label = "DRAM copy (read + write)";
  copy.accounting = "2 x 1 GiB";
  copy.launch = "528 blocks x 512 threads";
  copy.work_per_launch = 2.0 * 1024 * 1024 * 1024;
  copy.repetitions = 20;
  copy.median_time_s = 5.1e-4 / 3.0;  // not exactly representable in decimal: checks the round trip
  copy.min_time_s = 5.0e-4;
  copy.max_time_s = 5.3e-4;
  copy.sm_clock_hz = 1.98e9;
  copy.rate = copy.work_per_launch / *copy.median_time_s;
  copy.counted_work = 2.1475e9;
  copy.counted_metric = "dram__bytes_read.sum + dram__bytes_write.sum";
  // The driver's copy of the same buffers: faster than our kernel on the H200, and not a kernel
  // launch the range profiler records, so its counted value is null with the reason.
  PeakBenchmarkRecord memcpy_copy = copy;
  memcpy_copy.name = "dram_copy_memcpy";
  memcpy_copy.label = "DRAM copy (cudaMemcpyAsync D2D)";
  memcpy_copy.launch = "cudaMemcpyAsync(dst, src, buffer, cudaMemcpyDeviceToDevice)";
  memcpy_copy.median_time_s = 4.8e-4 / 3.0;
  memcpy_copy.rate = memcpy_copy.work_per_launch / *memcpy_copy.median_time_s;
  memcpy_copy.counted_work.reset();
  memcpy_copy.counted_metric += " (counter pass recorded 0 ranges, expected 1)";
  PeakBenchmarkRecord wgmma;
  wgmma.name = "tensor_fp16_wgmma";
  wgmma.kind = CeilingKind::kTensorFp16;
  wgmma.label = "tensor fp16 wgmma";
  wgmma.work_per_launch = 1e12;
  wgmma.repetitions = 20;
  wgmma.null_reason = "wgmma needs compute capability 9.0";
  r.benchmarks = {copy, memcpy_copy, wgmma};
  r.measured = measured_peak_set(r.benchmarks, "test run");
  r.datasheet = unavailable_peak_set(RoofSource::kDatasheet, "'NVIDIA H200' is not in the table");
  CounterPeakInputs in;
  in.dram_bytes_per_cycle = 1504.0;
  in.dram_clock_hz = 3.199e9;
  r.counters = counter_peak_set(in, 9, 0, "test counters");
  return r;
}

TEST(PeaksCache, DirectoryFollowsXdgThenHome) {
  EXPECT_EQ(*peaks_cache_dir("/xdg", "/home/u"), "/xdg/rooflinectl");
  // A relative XDG_CACHE_HOME is invalid per the spec and ignored.
  EXPECT_EQ(*peaks_cache_dir("relative", "/home/u"), "/home/u/.cache/rooflinectl");
  EXPECT_EQ(*peaks_cache_dir(nullptr, "/home/u"), "/home/u/.cache/rooflinectl");
  EXPECT_FALSE(peaks_cache_dir(nullptr, nullptr));
  EXPECT_FALSE(peaks_cache_dir("", ""));
}

TEST(PeaksCache, FileNameCarriesTheKeyAndCannotEscapeTheDirectory) {
  EXPECT_EQ(peaks_cache_file_name(h200_key()),
            "peaks-GPU-0123abcd-4567-89ef-0123-456789abcdef-580.159.04-1980MHz.json");
  const std::string evil = peaks_cache_file_name(PeaksKey{"../../etc/x", "a b/c", 1.41e9});
  EXPECT_EQ(evil.find('/'), std::string::npos) << evil;
  EXPECT_EQ(evil.find(' '), std::string::npos) << evil;
  EXPECT_NE(evil.find("1410MHz"), std::string::npos) << evil;
  // Every key part changes the name.
  PeaksKey other = h200_key();
  other.driver = "580.170.01";
  EXPECT_NE(peaks_cache_file_name(other), peaks_cache_file_name(h200_key()));
  other = h200_key();
  other.sm_clock_max_hz = 1.755e9;
  EXPECT_NE(peaks_cache_file_name(other), peaks_cache_file_name(h200_key()));
}

TEST(PeaksCache, SaveThenLoadRoundTripsEveryField) {
  TempDir dir;
  const std::string nested = dir.str() + "/a/b";  // created on save
  const PeaksRecord original = sample_record();
  const std::string path = save_peaks_cache(nested, original);
  EXPECT_EQ(path, nested + "/" + peaks_cache_file_name(original.key));
  std::string why_not;
  const auto back = load_peaks_cache(nested, original.key, why_not);
  ASSERT_TRUE(back) << why_not;
  EXPECT_EQ(peaks_record_to_json_text(*back), peaks_record_to_json_text(original));
  ASSERT_EQ(back->benchmarks.size(), 3u);
  EXPECT_EQ(*back->benchmarks[0].median_time_s, *original.benchmarks[0].median_time_s);
  EXPECT_EQ(*back->benchmarks[0].rate, *original.benchmarks[0].rate);
  EXPECT_EQ(back->benchmarks[1].name, "dram_copy_memcpy");
  EXPECT_EQ(back->benchmarks[1].kind, CeilingKind::kDram);
  EXPECT_FALSE(back->benchmarks[1].counted_work);
  EXPECT_EQ(back->benchmarks[1].counted_metric, original.benchmarks[1].counted_metric);
  EXPECT_FALSE(back->benchmarks[2].rate);
  EXPECT_EQ(back->benchmarks[2].null_reason, "wgmma needs compute capability 9.0");
  EXPECT_EQ(back->benchmarks[2].kind, CeilingKind::kTensorFp16);
  EXPECT_EQ(*back->measured.dram.value, *original.measured.dram.value);
  EXPECT_EQ(back->measured.dram.source, original.measured.dram.source);
  EXPECT_NE(back->measured.dram.source.find("cudaMemcpyAsync"), std::string::npos)
      << back->measured.dram.source;
  ASSERT_TRUE(back->datasheet.null_reason);
  EXPECT_EQ(*back->datasheet.null_reason, "'NVIDIA H200' is not in the table");
  EXPECT_DOUBLE_EQ(*back->counters.dram.value, 1504.0 * 3.199e9);
  EXPECT_FALSE(back->counters.fp32.value);
  EXPECT_EQ(back->key.sm_clock_max_hz, 1.98e9);
}

TEST(PeaksCache, AnotherKeyOrABrokenFileIsNotUsed) {
  TempDir dir;
  const PeaksRecord original = sample_record();
  save_peaks_cache(dir.str(), original);
  std::string why_not;
  PeaksKey other = original.key;
  other.driver = "575.51.03";
  EXPECT_FALSE(load_peaks_cache(dir.str(), other, why_not));
  EXPECT_NE(why_not.find("no cache entry"), std::string::npos) << why_not;

  // A file under this key's name whose content names another GPU (copied between machines).
  PeaksRecord foreign = original;
  foreign.key.gpu_uuid = "GPU-ffffffff-ffff-ffff-ffff-ffffffffffff";
  {
    std::ofstream out(dir.str() + "/" + peaks_cache_file_name(original.key));
    out << peaks_record_to_json_text(foreign);
  }
  EXPECT_FALSE(load_peaks_cache(dir.str(), original.key, why_not));
  EXPECT_NE(why_not.find("another GPU"), std::string::npos) << why_not;

  for (const std::string text :
       {std::string("{not json"), std::string("{\"peaks_schema_version\": 99}"),
        std::string("{\"peaks_schema_version\": 1}")}) {
    std::ofstream(dir.str() + "/" + peaks_cache_file_name(original.key)) << text;
    EXPECT_FALSE(load_peaks_cache(dir.str(), original.key, why_not)) << text;
    EXPECT_NE(why_not.find("unreadable"), std::string::npos) << why_not;
  }
}

TEST(PeaksCache, NonFiniteRatesAreWrittenAsNull) {
  PeaksRecord r = sample_record();
  r.benchmarks[0].rate = std::numeric_limits<double>::infinity();
  r.benchmarks[0].median_time_s = std::numeric_limits<double>::quiet_NaN();
  const std::string text = peaks_record_to_json_text(r);
  EXPECT_EQ(text.find("inf"), std::string::npos);
  EXPECT_EQ(text.find("nan"), std::string::npos);
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  const PeaksRecord back = peaks_record_from_json_text(text, "memory");
  EXPECT_FALSE(back.benchmarks[0].rate);
}

TEST(PeaksCache, DriverVersionIsReadFromTheKernelModuleLine) {
  EXPECT_EQ(*parse_nvidia_module_version(
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 "
                "UTC 2023\nGCC version:  gcc version 12.2.0\n"),
            "535.104.05");
  EXPECT_EQ(*parse_nvidia_module_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                                         "580.159.04  Release Build  (dvs-builder@U16)\n"),
            "580.159.04");
  EXPECT_FALSE(parse_nvidia_module_version(""));
  EXPECT_FALSE(parse_nvidia_module_version("GCC version: 12.2.0"));
}

TEST(PeaksBlock, ReportCarriesAllThreeSourcesAndRoundTrips) {
  Report report;
  report.tool_version = "0.1.0";
  report.timestamp_utc = "2026-11-30T10:00:00Z";
  PeaksBlock block;
  block.requested = RoofSource::kDatasheet;
  block.used = RoofSource::kCounters;
  block.note = "--roof datasheet: the GPU is not in the datasheet table";
  block.datasheet = unavailable_peak_set(RoofSource::kDatasheet, "'X' is not in the table");
  block.measured = sample_record().measured;
  block.measured_cache = "/c/peaks-x.json";
  block.counters = sample_record().counters;
  report.peaks = block;
  const std::string text = report_to_json_text(report);
  const auto json = nlohmann::json::parse(text);
  ASSERT_TRUE(json["peaks"].is_object());
  EXPECT_TRUE(json["peaks"]["datasheet"].is_null());
  EXPECT_EQ(json["peaks"]["datasheet_null_reason"], "'X' is not in the table");
  EXPECT_EQ(json["peaks"]["roof_used"], "counters");
  EXPECT_EQ(json["peaks"]["roof_requested"], "datasheet");
  EXPECT_TRUE(json["peaks"]["measured"]["ceilings"]["dram_bytes_per_s"]["value"].is_number());
  EXPECT_TRUE(json["peaks"]["measured"]["ceilings"]["l2_bytes_per_s"]["value"].is_null());
  const Report back = report_from_json_text(text, "memory");
  ASSERT_TRUE(back.peaks);
  EXPECT_EQ(back.peaks->used, RoofSource::kCounters);
  EXPECT_EQ(*back.peaks->requested, RoofSource::kDatasheet);
  EXPECT_EQ(back.peaks->measured_cache, "/c/peaks-x.json");
  EXPECT_EQ(report_to_json_text(back), text);
}

TEST(PeaksBlock, ReportWithoutPeaksStillLoads) {
  Report report;
  report.tool_version = "0.1.0";
  std::string text = report_to_json_text(report);
  EXPECT_NE(text.find("\"peaks\": null"), std::string::npos);
  // A report written before the block existed has no key at all.
  auto json = nlohmann::ordered_json::parse(text);
  json.erase("peaks");
  EXPECT_FALSE(report_from_json_text(json.dump(), "old").peaks);
}

TEST(PeaksTable, ShowsTheThreeSourcesSideBySideWithRatiosAndRidges) {
  PeaksRecord r = sample_record();
  r.benchmarks[0].rate = 4.2e12;
  r.benchmarks[0].counted_work = r.benchmarks[0].work_per_launch * 1.0004;
  r.benchmarks[1].rate = 4.3e12;
  r.measured = measured_peak_set(r.benchmarks, "test run");
  r.datasheet = PeakSet{};
  r.datasheet.description = "datasheet: Test GPU";
  r.datasheet.dram = Ceiling{4.8e12, "datasheet: test r1"};
  r.datasheet.tensor_bf16 = Ceiling{989.5e12, "datasheet: test r1"};
  const std::string table = format_peaks_table(r);
  std::string copy_row;
  for (size_t start = 0; start < table.size();) {
    const size_t end = table.find('\n', start);
    const std::string line = table.substr(start, end - start);
    if (line.rfind("DRAM copy (read + write)", 0) == 0) copy_row = line;
    start = end + 1;
  }
  EXPECT_NE(copy_row.find("4.2 TB/s"), std::string::npos) << copy_row;
  EXPECT_NE(copy_row.find("4.8 TB/s"), std::string::npos) << copy_row;
  EXPECT_NE(copy_row.find("4.811 TB/s"), std::string::npos) << copy_row;
  EXPECT_NE(copy_row.find("87.5%"), std::string::npos) << copy_row;  // 4.2 / 4.8
  EXPECT_NE(copy_row.find("87.3%"), std::string::npos) << copy_row;  // 4.2 / 4.811
  EXPECT_NE(copy_row.find("1.000"), std::string::npos) << copy_row;
  // The driver's copy has its own row, with no counted/work ratio (no kernel range).
  std::string memcpy_row;
  for (size_t start = 0; start < table.size();) {
    const size_t end = table.find('\n', start);
    const std::string line = table.substr(start, end - start);
    if (line.rfind("DRAM copy (cudaMemcpyAsync D2D)", 0) == 0) memcpy_row = line;
    start = end + 1;
  }
  ASSERT_FALSE(memcpy_row.empty()) << table;
  EXPECT_NE(memcpy_row.find("4.3 TB/s"), std::string::npos) << memcpy_row;
  EXPECT_EQ(memcpy_row.back(), '-') << memcpy_row;
  // The measured DRAM roof is the best DRAM benchmark, and the table says which one.
  EXPECT_NE(table.find("  DRAM: 4.3 TB/s, measured: DRAM copy (cudaMemcpyAsync D2D) (best of 2 "
                       "DRAM benchmarks"),
            std::string::npos)
      << table;
  // Ridge of the datasheet: 989.5 / 4.8 = 206.1 FLOP/B; the measured set has no bf16 ceiling.
  EXPECT_NE(table.find("206.1"), std::string::npos) << table;
  EXPECT_NE(table.find("tensor fp16 wgmma: wgmma needs compute capability 9.0"), std::string::npos)
      << table;
  EXPECT_EQ(table.find("nan"), std::string::npos) << table;
}

TEST(PeakPlan, H200SizesFollowTheDevice) {
  const int64_t l2 = 60 * (int64_t{1} << 20);
  const PeakBenchmarkPlan plan = plan_peak_benchmarks(132, 2048, l2, int64_t{140} << 30);
  EXPECT_EQ(plan.dram_buffer_bytes, int64_t{1} << 30);  // max(1 GiB, 16 × 60 MiB)
  // Half of L2 cut into 132 chunks of whole 64 KiB steps: 3 steps (192 KiB) a block.
  EXPECT_EQ(plan.l2_blocks, 132);
  EXPECT_EQ(plan.l2_buffer_bytes, 132 * 3 * kPeakL2StepBytes);
  EXPECT_EQ(kPeakL2StepBytes, 64 * 1024);
  EXPECT_EQ(plan.stream_blocks, 132 * 4);
  EXPECT_EQ(plan.mma_blocks, 132 * 8);
  EXPECT_EQ(plan.wgmma_blocks, 132 * 2);
  // A bigger L2 makes bigger DRAM buffers; little free memory caps them.
  EXPECT_EQ(plan_peak_benchmarks(132, 2048, 128 * (int64_t{1} << 20), int64_t{140} << 30)
                .dram_buffer_bytes,
            16 * 128 * (int64_t{1} << 20));
  EXPECT_EQ(plan_peak_benchmarks(132, 2048, l2, int64_t{2} << 30).dram_buffer_bytes,
            int64_t{512} << 20);
  EXPECT_THROW(plan_peak_benchmarks(132, 2048, l2, int64_t{256} << 20), Error);
  EXPECT_THROW(plan_peak_benchmarks(0, 2048, l2, int64_t{140} << 30), Error);
}

}  // namespace
}  // namespace rooflinectl
