// Interruption of a sweep without a GPU: the signal scope (flag, second signal gets the default
// action, dispositions restored) and the per-point check the sweep loop runs between points,
// down to the JSON the report would hold.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "sweep/interruption.hpp"

namespace rooflinectl {
namespace {

volatile std::sig_atomic_t g_custom_handler_calls = 0;
extern "C" void custom_handler(int) { g_custom_handler_calls = g_custom_handler_calls + 1; }

sighandler_t current_handler(int signal_number) {
  struct sigaction action {};
  sigaction(signal_number, nullptr, &action);
  return action.sa_handler;
}

PointResult planned_point(const std::string& op, int64_t seq_len) {
  PointResult p;
  p.op = op;
  p.shape.seq_len = seq_len;
  p.analytic.flop = 1e9;
  p.analytic.min_dram_bytes = 1e6;
  p.analytic.implemented_dram_bytes = 1e6;
  return p;
}

// The sweep loop's logic: check before each point, measure only when not interrupted.
std::vector<PointResult> run_loop(int points, int raise_after, int signal_number) {
  std::vector<PointResult> out;
  for (int i = 0; i < points; ++i) {
    PointResult p = planned_point("gelu", 512 << i);
    if (!mark_if_interrupted(p)) {
      TimingResult timing;
      timing.samples_s = {1e-3};
      timing.median_s = timing.min_s = timing.max_s = 1e-3;
      p.timing = timing;
      p.version = "gelu_v1";
      p.validation = Validation{};
      p.validation->passed = true;
      if (i + 1 == raise_after) std::raise(signal_number);  // arrives while point i runs
    }
    out.push_back(std::move(p));
  }
  return out;
}

TEST(Interrupt, FirstSignalSetsTheFlagAndKeepsTheHandler) {
  const InterruptScope scope;
  EXPECT_EQ(pending_interrupt(), 0);
  EXPECT_NE(current_handler(SIGINT), SIG_DFL);
  std::raise(SIGINT);  // would kill the test binary if the handler were not installed
  EXPECT_EQ(pending_interrupt(), SIGINT);
  EXPECT_NE(current_handler(SIGINT), SIG_DFL);
  EXPECT_NE(current_handler(SIGTERM), SIG_DFL);
}

// timeout(1) signals the command and then its process group: the copy that follows at once is
// the same stop, and the sweep still finishes its point and writes the report.
TEST(Interrupt, ARepeatWithinTheWindowIsTheSameStop) {
  const InterruptScope scope;
  std::raise(SIGTERM);
  std::raise(SIGTERM);  // would kill the test binary if taken for a second stop
  std::raise(SIGINT);
  EXPECT_EQ(pending_interrupt(), SIGTERM);
}

// Two SIGINTs three windows apart inside one scope (the second kills the process).
void interrupt_twice_slowly() {
  const InterruptScope scope;
  std::raise(SIGINT);
  struct timespec pause {};
  pause.tv_nsec = static_cast<long>(3 * kRepeatedSignalWindowS * 1e9);
  nanosleep(&pause, nullptr);
  std::raise(SIGINT);
}

// A second signal after the window is a person who means it: the process dies of that signal.
TEST(Interrupt, ASecondSignalAfterTheWindowKills) {
  EXPECT_EXIT(interrupt_twice_slowly(); std::_Exit(0), testing::KilledBySignal(SIGINT),
                                        "interrupted: finishing the current point");
}

TEST(Interrupt, SigtermIsCaughtToo) {
  const InterruptScope scope;
  std::raise(SIGTERM);
  EXPECT_EQ(pending_interrupt(), SIGTERM);
  EXPECT_EQ(signal_name(pending_interrupt()), "SIGTERM");
}

TEST(Interrupt, ScopeRestoresThePreviousHandlersAndANewScopeClearsTheFlag) {
  std::signal(SIGINT, custom_handler);
  {
    const InterruptScope scope;
    std::raise(SIGINT);
    EXPECT_EQ(g_custom_handler_calls, 0);
  }
  EXPECT_EQ(current_handler(SIGINT), custom_handler);
  std::raise(SIGINT);
  EXPECT_EQ(g_custom_handler_calls, 1);
  std::signal(SIGINT, SIG_DFL);
  const InterruptScope scope;
  EXPECT_EQ(pending_interrupt(), 0);
}

TEST(Interrupt, NoSignalMeasuresEveryPoint) {
  const InterruptScope scope;
  for (const PointResult& p : run_loop(4, 0, SIGINT)) {
    EXPECT_EQ(p.status, PointStatus::kOk);
    EXPECT_TRUE(p.timing);
  }
}

TEST(Interrupt, PointsAfterTheSignalAreInterruptedAndTheReportStaysValid) {
  const InterruptScope scope;
  Report report;
  report.tool_version = "0.1.0";
  report.config = default_sweep_config();
  report.points = run_loop(5, 2, SIGINT);  // the signal arrives during the second point
  ASSERT_EQ(report.points.size(), 5u);
  for (size_t i = 0; i < report.points.size(); ++i) {
    const PointResult& p = report.points[i];
    SCOPED_TRACE(i);
    if (i < 2) {
      EXPECT_EQ(p.status, PointStatus::kOk);
      EXPECT_TRUE(p.timing);
      continue;
    }
    EXPECT_EQ(p.status, PointStatus::kInterrupted);
    EXPECT_EQ(p.reason, "not run: the sweep was interrupted by SIGINT");
    EXPECT_FALSE(p.timing);
    EXPECT_FALSE(p.roofline);
    ASSERT_TRUE(p.counters.null_reason);
    EXPECT_EQ(p.roofline_null_reason, p.reason);
  }
  EXPECT_TRUE(report_was_interrupted(report));

  // Written and read back with the strict reader: "interrupted" is a status it accepts.
  const std::string text = report_to_json_text(report);
  EXPECT_EQ(nlohmann::json::parse(text)["points"][4]["status"], "interrupted");
  const Report back = report_from_json_text(text, "interrupted.json");
  ASSERT_EQ(back.points.size(), 5u);
  EXPECT_EQ(back.points[1].status, PointStatus::kOk);
  EXPECT_EQ(back.points[2].status, PointStatus::kInterrupted);
  EXPECT_EQ(back.points[2].reason, report.points[2].reason);
}

TEST(Interrupt, StatusParsesAndUnknownStatusNamesTheAllowedSet) {
  EXPECT_EQ(parse_point_status("interrupted"), PointStatus::kInterrupted);
  EXPECT_EQ(to_string(PointStatus::kInterrupted), "interrupted");
  try {
    parse_point_status("stopped");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("interrupted"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rooflinectl
