// Graceful interruption of a sweep. SIGINT/SIGTERM only set a flag (the one thing a signal
// handler may safely do); the sweep loop checks it between points, marks the points it did not
// run as interrupted and the report is written as usual, atomically. A second signal gets the
// default action (the process dies at once): a user who presses Ctrl-C twice means it.
#pragma once

#include <string>

namespace rooflinectl {

/// Seconds after the first signal during which another SIGINT or SIGTERM is taken for the same
/// stop and ignored (a person's second Ctrl-C comes later than this).
inline constexpr double kRepeatedSignalWindowS = 0.1;

/// While alive, SIGINT and SIGTERM are caught: the first one records its number (see
/// pending_interrupt) and writes one notice line to stderr with write(2); a later one ignores
/// itself within kRepeatedSignalWindowS of the first, else restores the default action for both
/// signals and is re-raised, terminating the process. The destructor restores the dispositions
/// that were in place before. One scope at a time (not nestable); not
/// thread-safe to construct from several threads. Throws nothing.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

/// The signal number (SIGINT, SIGTERM) caught inside the current or last InterruptScope, 0 when
/// none. Async-signal-safe to read; cleared when a new scope starts.
int pending_interrupt();

/// "SIGINT", "SIGTERM", or "signal N".
std::string signal_name(int signal_number);

/// Exit code of a run stopped by a signal: 128 + SIGINT = 130, the shell's convention for Ctrl-C
/// (used for SIGTERM too, so scripts see one code for "interrupted, partial report written").
inline constexpr int kInterruptedExitCode = 130;

}  // namespace rooflinectl
