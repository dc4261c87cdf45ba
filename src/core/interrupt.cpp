#include "core/interrupt.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <ctime>

namespace rooflinectl {
namespace {

// sig_atomic_t is the type the C and POSIX standards allow a handler to write.
volatile std::sig_atomic_t g_pending_signal = 0;
// When the first signal arrived (CLOCK_MONOTONIC); written by the handler only, before it sets
// g_pending_signal, and read by the handler only.
struct timespec g_first_signal_time {};

struct sigaction g_previous_int;
struct sigaction g_previous_term;

constexpr char kNotice[] =
    "\nrooflinectl: interrupted: finishing the current point, then writing the report "
    "(interrupt again to abort at once)\n";

double seconds_since(const struct timespec& then) {
  struct timespec now {};
  (void)clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec - then.tv_sec) +
         static_cast<double>(now.tv_nsec - then.tv_nsec) * 1e-9;
}

void restore_default(int signal_number) {
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  (void)sigaction(signal_number, &action, nullptr);
}

// Only async-signal-safe calls here (clock_gettime, sigaction, write, raise).
extern "C" void on_interrupt(int signal_number) {
  if (g_pending_signal == 0) {
    (void)clock_gettime(CLOCK_MONOTONIC, &g_first_signal_time);
    g_pending_signal = signal_number;
    (void)!::write(STDERR_FILENO, kNotice, sizeof(kNotice) - 1);
    return;
  }
  // The same stop delivered twice (timeout(1) signals the command and then its process group).
  if (seconds_since(g_first_signal_time) < kRepeatedSignalWindowS) return;
  restore_default(SIGINT);
  restore_default(SIGTERM);
  // Blocked while this handler runs; delivered with the default action when it returns.
  (void)raise(signal_number);
}

}  // namespace

InterruptScope::InterruptScope() {
  g_pending_signal = 0;
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  // Block the other signal while the handler runs, so the two cannot interleave.
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  // SA_RESTART: a read or write in progress (the report) resumes instead of failing with EINTR.
  action.sa_flags = SA_RESTART;
  (void)sigaction(SIGINT, &action, &g_previous_int);
  (void)sigaction(SIGTERM, &action, &g_previous_term);
}

InterruptScope::~InterruptScope() {
  (void)sigaction(SIGINT, &g_previous_int, nullptr);
  (void)sigaction(SIGTERM, &g_previous_term, nullptr);
}

int pending_interrupt() { return g_pending_signal; }

std::string signal_name(int signal_number) {
  if (signal_number == SIGINT) return "SIGINT";
  if (signal_number == SIGTERM) return "SIGTERM";
  return fmt::format("signal {}", signal_number);
}

}  // namespace rooflinectl
