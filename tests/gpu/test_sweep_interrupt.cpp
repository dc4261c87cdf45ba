// SIGINT/SIGTERM during a real sweep: the binary finishes the point it is on, writes a valid
// report (read back with the strict reader) whose remaining points are "interrupted", and exits
// 130, also when the signal comes twice at once (as timeout(1) sends it); a second signal after
// kRepeatedSignalWindowS kills it at once without leaving a report or a temporary file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/interrupt.hpp"
#include "io/json_reader.hpp"

namespace rooflinectl {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  bool exited = false;
  int exit_code = -1;
  int term_signal = 0;
  std::string stderr_text;
};

/// Starts `rooflinectl args...`, reads its stderr until a line starts with `trigger`, sends each
/// of `signals` (`gap_us` microseconds apart), then drains stderr and waits for the process.
Outcome run_and_signal(const std::vector<std::string>& args, const std::string& trigger,
                       const std::vector<int>& signals, useconds_t gap_us = 0) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], STDERR_FILENO);
    const int null_fd = ::open("/dev/null", O_WRONLY);
    dup2(null_fd, STDOUT_FILENO);
    close(pipe_fds[0]);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(RFL_BINARY));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(RFL_BINARY, argv.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  Outcome outcome;
  FILE* err = fdopen(pipe_fds[0], "r");
  char line[4096];
  bool sent = false;
  while (fgets(line, sizeof line, err) != nullptr) {
    outcome.stderr_text += line;
    if (!sent && std::string(line).rfind(trigger, 0) == 0) {
      for (size_t i = 0; i < signals.size(); ++i) {
        if (i > 0) usleep(gap_us);
        kill(pid, signals[i]);
      }
      sent = true;
    }
  }
  fclose(err);
  int status = 0;
  waitpid(pid, &status, 0);
  outcome.exited = WIFEXITED(status);
  outcome.exit_code = outcome.exited ? WEXITSTATUS(status) : -1;
  outcome.term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return outcome;
}

/// A directory of its own, so a leftover temporary file would be seen.
fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Four gemm points, long enough (50 samples each plus the counter pass) that the signal lands
// while the second one runs.
const std::vector<std::string> kSweepArgs = {"sweep",      "--ops",         "gemm", "--seq",
                                             "1024..8192", "--repetitions", "50"};

void expect_interrupted_report(const fs::path& dir, const std::string& signal_name) {
  const fs::path report_path = dir / "r.json";
  ASSERT_TRUE(fs::exists(report_path));
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u) << "a temporary file was left next to the report";
  const Report report = load_report(report_path.string());
  ASSERT_EQ(report.points.size(), 4u);
  EXPECT_EQ(report.points[0].status, PointStatus::kOk) << report.points[0].reason;
  // The point running when the signal came is finished and kept.
  EXPECT_EQ(report.points[1].status, PointStatus::kOk) << report.points[1].reason;
  size_t interrupted = 0;
  for (size_t i = 2; i < report.points.size(); ++i) {
    const PointResult& p = report.points[i];
    if (p.status != PointStatus::kInterrupted) {
      EXPECT_EQ(interrupted, 0u) << "an ok point after an interrupted one at " << i;
      continue;
    }
    ++interrupted;
    EXPECT_NE(p.reason.find(signal_name), std::string::npos) << p.reason;
    EXPECT_FALSE(p.timing);
  }
  EXPECT_GE(interrupted, 1u);
}

/// Runs kSweepArgs into a fresh folder `dir_name`, sends `signals` at once when the second point
/// starts, and expects one stop: exit 130 and the report of expect_interrupted_report.
void expect_one_stop(const std::string& dir_name, const std::vector<int>& signals,
                     const std::string& signal_name) {
  const fs::path dir = fresh_dir(dir_name);
  std::vector<std::string> args = kSweepArgs;
  args.insert(args.end(), {"--output", (dir / "r.json").string()});
  const Outcome outcome = run_and_signal(args, "[2/4]", signals);
  ASSERT_TRUE(outcome.exited) << "killed by signal " << outcome.term_signal;
  EXPECT_EQ(outcome.exit_code, 130) << outcome.stderr_text;
  EXPECT_NE(outcome.stderr_text.find("interrupted"), std::string::npos);
  expect_interrupted_report(dir, signal_name);
  fs::remove_all(dir);
}

TEST(SweepInterrupt, SigintWritesCompletedPointsAndExits130) {
  expect_one_stop("rooflinectl-sigint", {SIGINT}, "SIGINT");
}

TEST(SweepInterrupt, SigtermWritesCompletedPointsAndExits130) {
  expect_one_stop("rooflinectl-sigterm", {SIGTERM}, "SIGTERM");
}

// timeout(1) signals the command, then its process group: one stop, so the report is written.
TEST(SweepInterrupt, TheSameSignalTwiceAtOnceIsOneStop) {
  expect_one_stop("rooflinectl-sigterm2", {SIGTERM, SIGTERM}, "SIGTERM");
}

TEST(SweepInterrupt, SecondSignalAbortsAtOnceWithoutAnyFile) {
  const fs::path dir = fresh_dir("rooflinectl-sigint2");
  // Each point samples for 2 s (a noise target it cannot reach), so the second point still runs
  // when the second signal comes; kSweepArgs' points finish within 0.15 s of the first.
  const std::vector<std::string> args = {"sweep",
                                         "--ops",
                                         "gemm",
                                         "--seq",
                                         "1024..8192",
                                         "--max-noise",
                                         "0.0001%",
                                         "--max-time",
                                         "2",
                                         "--output",
                                         (dir / "r.json").string()};
  // 1.5 windows apart: a second stop, not the first delivered twice.
  const Outcome outcome = run_and_signal(
      args, "[2/4]", {SIGINT, SIGINT}, static_cast<useconds_t>(1.5 * kRepeatedSignalWindowS * 1e6));
  EXPECT_FALSE(outcome.exited) << "exit " << outcome.exit_code;
  EXPECT_EQ(outcome.term_signal, SIGINT);
  EXPECT_TRUE(fs::is_empty(dir)) << "a report or temporary file was written";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rooflinectl
