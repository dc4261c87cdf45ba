// Running the program `rooflinectl profile` measures: fork, the injection variables added to its
// environment, exec, wait. POSIX; no CUDA.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rooflinectl {

/// How a child process ended.
struct ChildExit {
  std::optional<int> exit_code;  ///< when it exited
  std::optional<int> signal;     ///< when a signal ended it
  double wall_time_s = 0;        ///< fork to exit
};

/// The exit status `profile` returns for a child that ended so: its exit code, or 128 + the
/// signal number (as a shell reports it).
int pass_through_status(const ChildExit& exit);

/// Throws the bad-input Error run_child would ("cannot run '<command[0]>': <OS reason>") when
/// command[0] names no executable file: a path (with a '/') that is missing or not executable, or
/// a name found in no PATH directory (execvp's search; an unset PATH searches /usr/bin:/bin). An
/// empty `command` is a bad-input Error too. Lets `profile` refuse a mistyped program before it
/// checks for a GPU.
void check_runnable(const std::vector<std::string>& command);

/// Runs `command` (argv; command[0] looked up on PATH) with `environment` added to this process's
/// environment, waits for it and returns how it ended. While it runs, SIGINT and SIGTERM sent to
/// `profile` are passed to the child (which is in the same process group, so a terminal's ^C
/// reaches both) and otherwise ignored, so that the report is still written. Throws a bad-input
/// Error "cannot run '<command[0]>': <OS reason>" when exec fails (not found, not executable),
/// an empty `command` is a bad-input Error, and a failed fork an environment Error.
ChildExit run_child(const std::vector<std::string>& command,
                    const std::vector<std::pair<std::string, std::string>>& environment);

}  // namespace rooflinectl
