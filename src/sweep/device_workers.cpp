#include "sweep/device_workers.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/layer_widths.hpp"
#include "core/shard.hpp"
#include "core/sweep_plan.hpp"
#include "device/gpu_spec.hpp"
#include "io/atomic_file.hpp"
#include "io/json_reader.hpp"
#include "io/json_writer.hpp"
#include "kernels/operator.hpp"
#include "merge/shard_merge.hpp"
#include "model/prediction.hpp"

namespace rooflinectl {
namespace {

/// One worker process: its device, its report path, the read end of its stderr pipe, the part
/// of a line not yet ended, and its last complete line (quoted when it fails).
struct Worker {
  int device = 0;
  std::string report_path;
  pid_t pid = -1;
  int stderr_fd = -1;
  std::string partial_line;
  std::string last_line;
  int exit_code = -1;
};

/// A private directory for the workers' config and reports, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") +
                          "/rooflinectl-devices-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw environment_error(fmt::format(
          "sweep --devices: cannot create a directory for the workers' reports ({}): {} (set "
          "TMPDIR to a writable directory)",
          pattern, std::strerror(errno)));
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string self_executable() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    throw environment_error(fmt::format(
        "sweep --devices: cannot find this executable through /proc/self/exe: {}", ec.message()));
  }
  return self.string();
}

/// Starts `args` (args[0] the executable) with stdout on /dev/null and stderr on a pipe, in a
/// process group of its own so that a terminal's Ctrl-C reaches the parent alone.
void start_worker(Worker& worker, const std::vector<std::string>& args) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    throw environment_error(fmt::format("sweep --devices: pipe for the worker on device {}: {}",
                                        worker.device, std::strerror(errno)));
  }
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    throw environment_error(fmt::format("sweep --devices: cannot start the worker on device {}: {}",
                                        worker.device, std::strerror(errno)));
  }
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec.
    ::setpgid(0, 0);
    const int null_fd = ::open("/dev/null", O_WRONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDOUT_FILENO);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::execv(argv[0], argv.data());
    static const char message[] = "error: sweep --devices: exec of the worker failed\n";
    (void)!::write(STDERR_FILENO, message, sizeof(message) - 1);
    ::_exit(4);
  }
  ::setpgid(pid, pid);  // also here: the parent may signal before the child has run
  ::close(pipe_fds[1]);
  worker.pid = pid;
  worker.stderr_fd = pipe_fds[0];
}

/// Copies the complete lines read from the worker's stderr to `progress`, prefixed.
void forward_lines(Worker& worker, const char* data, size_t size, std::ostream& progress) {
  worker.partial_line.append(data, size);
  size_t start = 0;
  for (size_t end; (end = worker.partial_line.find('\n', start)) != std::string::npos;
       start = end + 1) {
    const std::string line = worker.partial_line.substr(start, end - start);
    if (!line.empty()) worker.last_line = line;
    progress << "[gpu " << worker.device << "] " << line << '\n';
  }
  worker.partial_line.erase(0, start);
  progress.flush();
}

/// Reads every worker's stderr until all have closed it, passing the parent's first caught
/// signal on to each worker once; then reaps them.
void supervise(std::vector<Worker>& workers, std::ostream& progress) {
  bool signalled = false;
  size_t open = workers.size();
  while (open > 0) {
    if (!signalled && pending_interrupt() != 0) {
      for (const Worker& worker : workers) ::kill(-worker.pid, SIGINT);
      signalled = true;
    }
    std::vector<pollfd> fds;
    std::vector<Worker*> owners;
    for (Worker& worker : workers) {
      if (worker.stderr_fd < 0) continue;
      fds.push_back({worker.stderr_fd, POLLIN, 0});
      owners.push_back(&worker);
    }
    const int ready = ::poll(fds.data(), fds.size(), 200);
    if (ready < 0 && errno != EINTR) {
      throw std::runtime_error(fmt::format("sweep --devices: poll: {}", std::strerror(errno)));
    }
    for (size_t i = 0; ready > 0 && i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      char buffer[4096];
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        forward_lines(*owners[i], buffer, static_cast<size_t>(n), progress);
      } else if (n == 0 || errno != EINTR) {
        if (!owners[i]->partial_line.empty()) forward_lines(*owners[i], "\n", 1, progress);
        ::close(owners[i]->stderr_fd);
        owners[i]->stderr_fd = -1;
        --open;
      }
    }
  }
  for (Worker& worker : workers) {
    int status = 0;
    while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
    }
    worker.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
}

/// A worker that ended without its report: the parent fails as the worker did.
[[noreturn]] void fail_as_worker(const Worker& worker) {
  const std::string message = fmt::format(
      "sweep --devices: the worker on device {} exited {} without its report{}", worker.device,
      worker.exit_code,
      worker.last_line.empty() ? "" : fmt::format(" (its last line: {})", worker.last_line));
  if (worker.exit_code == static_cast<int>(ExitCode::kBadInput)) throw bad_input(message);
  if (worker.exit_code == static_cast<int>(ExitCode::kEnvironment)) {
    throw environment_error(message);
  }
  throw std::runtime_error(message);
}

// Reference roofs for the predicted costs that balance the workers: only the ratios between
// points matter, and those change little from one GPU generation to the next.
constexpr const char* kCostModelGpu = "h200-sxm";
// Per-point work besides the timed launches (allocation, filling, validation, the counter
// sessions): about 40-50 ms a point in the H200 sweeps of docs/perf-notes.md.
constexpr double kPointOverheadS = 0.05;
// Launches of the kernel a point makes: warm-ups, timed samples, validation and counter passes.
constexpr double kLaunchesPerPoint = 20;

/// Each planned point's predicted wall time in a worker: the fixed cost plus its launches at the
/// time the datasheet roofs of kCostModelGpu allow (model/prediction.hpp implemented_time_s).
std::vector<double> predicted_point_costs(const SweepConfig& config) {
  const GpuSpec& gpu = find_gpu_spec(kCostModelGpu);
  std::vector<double> costs;
  for (const PlannedPoint& point : plan_all_points(config)) {
    const Prediction p = predict(point.op, find_operator(point.op).pipe(point.shape), point.shape,
                                 kernel_layer_widths(point.shape), gpu);
    costs.push_back(kPointOverheadS + kLaunchesPerPoint * p.implemented_time_s.value_or(0.0));
  }
  return costs;
}

}  // namespace

Report run_sweep_on_devices(const SweepConfig& config, const std::vector<int>& devices,
                            const WorkerFlags& flags, std::ostream& progress) {
  if (devices.size() < 2) {
    throw std::logic_error("run_sweep_on_devices needs two devices or more");
  }
  const TempDir dir;
  const std::string config_path = dir.path() + "/config.json";
  write_file_atomically(config_path, sweep_config_file_json(config).dump(2) + "\n");
  const std::string executable = self_executable();
  // Balanced by predicted time; a GPU left without points (more GPUs than points) gets no worker.
  std::vector<std::vector<size_t>> shares =
      balance_plan_positions(predicted_point_costs(config), static_cast<int>(devices.size()));
  std::vector<int> used_devices;
  for (size_t i = 0; i < shares.size(); ++i) {
    if (!shares[i].empty()) used_devices.push_back(devices[i]);
  }
  shares.erase(std::remove_if(shares.begin(), shares.end(),
                              [](const std::vector<size_t>& share) { return share.empty(); }),
               shares.end());
  const int count = static_cast<int>(shares.size());
  std::vector<Worker> workers(shares.size());
  for (int i = 0; i < count; ++i) {
    Worker& worker = workers[static_cast<size_t>(i)];
    worker.device = used_devices[static_cast<size_t>(i)];
    std::string positions;
    for (const size_t position : shares[static_cast<size_t>(i)]) {
      positions += (positions.empty() ? "" : ",") + std::to_string(position);
    }
    worker.report_path = fmt::format("{}/shard-{}.json", dir.path(), i + 1);
    std::vector<std::string> args = {executable, "sweep",
                                     "--config", config_path,
                                     "--device", std::to_string(worker.device),
                                     "--shard",  ShardSpec{i + 1, count, {}}.text(),
                                     "--output", worker.report_path,
                                     "--format", "json"};
    if (flags.roof) args.insert(args.end(), {"--roof", *flags.roof});
    if (config.require_counters) args.emplace_back("--require-counters");
    if (!config.lock_clocks.empty()) args.insert(args.end(), {"--lock-clocks", config.lock_clocks});
    fmt::print(progress, "sweep --devices: {} points on device {} (shard {}, {})\n",
               shares[static_cast<size_t>(i)].size(), worker.device,
               ShardSpec{i + 1, count, {}}.text(), "balanced by predicted time");
    start_worker(worker, args);
  }
  supervise(workers, progress);

  std::vector<MergeInput> inputs;
  for (const Worker& worker : workers) {
    if (!std::filesystem::exists(worker.report_path)) fail_as_worker(worker);
    inputs.push_back({fmt::format("sweep --devices worker on device {}", worker.device),
                      load_report(worker.report_path)});
  }
  MergeOptions options;
  options.allow_different_gpus = true;
  MergeResult merged = merge_shard_reports(std::move(inputs), options);
  for (const std::string& warning : merged.warnings) {
    fmt::print(progress, "warning: {}\n", warning);
  }
  merged.report.config.device = used_devices.front();
  merged.report.config.require_counters = config.require_counters;
  merged.report.config.lock_clocks = config.lock_clocks;
  return std::move(merged.report);
}

}  // namespace rooflinectl
