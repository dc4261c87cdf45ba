#include "program/child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

volatile sig_atomic_t g_child_pid = 0;

extern "C" void forward_signal(int signal_number) {
  if (g_child_pid > 0) kill(static_cast<pid_t>(g_child_pid), signal_number);
}

void refuse_empty(const std::vector<std::string>& command) {
  if (command.empty())
    throw bad_input("profile: no program given (usage: profile [options] -- CMD ARGS...)");
}

/// 0 when `path` is an executable regular file, else the errno access/stat report.
int executable_error(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return errno;
  if (!S_ISREG(info.st_mode)) return EACCES;
  return access(path.c_str(), X_OK) == 0 ? 0 : errno;
}

}  // namespace

void check_runnable(const std::vector<std::string>& command) {
  refuse_empty(command);
  const std::string& name = command[0];
  int error = ENOENT;
  if (name.find('/') != std::string::npos) {
    error = executable_error(name);
  } else if (!name.empty()) {
    const char* path_variable = std::getenv("PATH");
    const std::string path = path_variable ? path_variable : "/usr/bin:/bin";
    size_t begin = 0;
    while (error != 0 && begin <= path.size()) {
      const size_t end = std::min(path.find(':', begin), path.size());
      const std::string directory = end > begin ? path.substr(begin, end - begin) : ".";
      const int found = executable_error(directory + "/" + name);
      if (found == 0 || found == EACCES) error = found;
      begin = end + 1;
    }
  }
  if (error != 0) throw bad_input(fmt::format("cannot run '{}': {}", name, std::strerror(error)));
}

int pass_through_status(const ChildExit& exit) {
  if (exit.exit_code) return *exit.exit_code;
  if (exit.signal) return 128 + *exit.signal;
  return 1;
}

ChildExit run_child(const std::vector<std::string>& command,
                    const std::vector<std::pair<std::string, std::string>>& environment) {
  refuse_empty(command);
  // The child reports a failed exec through this pipe (closed on a successful exec).
  int report_pipe[2];
  if (pipe2(report_pipe, O_CLOEXEC) != 0) {
    throw environment_error(fmt::format("pipe failed: {}", std::strerror(errno)));
  }
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    close(report_pipe[0]);
    close(report_pipe[1]);
    throw environment_error(fmt::format("fork failed: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    close(report_pipe[0]);
    for (const auto& [name, value] : environment) setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> argv;
    for (const auto& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const int error = errno;
    (void)!write(report_pipe[1], &error, sizeof error);
    _exit(127);
  }
  close(report_pipe[1]);
  g_child_pid = pid;
  struct sigaction forward {};
  forward.sa_handler = forward_signal;
  sigemptyset(&forward.sa_mask);
  struct sigaction old_int {
  }, old_term{};
  sigaction(SIGINT, &forward, &old_int);
  sigaction(SIGTERM, &forward, &old_term);

  int exec_error = 0;
  ssize_t got = 0;
  do {
    got = read(report_pipe[0], &exec_error, sizeof exec_error);
  } while (got < 0 && errno == EINTR);
  close(report_pipe[0]);
  int status = 0;
  pid_t waited = 0;
  do {
    waited = waitpid(pid, &status, 0);
  } while (waited < 0 && errno == EINTR);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  g_child_pid = 0;
  if (got == static_cast<ssize_t>(sizeof exec_error)) {
    throw bad_input(fmt::format("cannot run '{}': {}", command[0], std::strerror(exec_error)));
  }
  ChildExit exit;
  exit.wall_time_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (waited == pid && WIFEXITED(status)) exit.exit_code = WEXITSTATUS(status);
  if (waited == pid && WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
  return exit;
}

}  // namespace rooflinectl
