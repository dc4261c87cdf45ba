#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>

#include "core/error.hpp"

namespace rooflinectl {
namespace {

// Unique among this process's calls (counter), among processes (pid), and against a stale file
// left by a killed run that had the same pid (random tag); O_EXCL makes any remaining clash an
// error we retry instead of a silent overwrite.
std::string temporary_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  static thread_local std::mt19937 random_tag{std::random_device{}()};
  return fmt::format("{}.tmp.{}.{}.{:08x}", path, static_cast<long>(getpid()), counter++,
                     static_cast<unsigned>(random_tag()));
}

[[noreturn]] void fail(const std::string& path, const char* step, int error_number) {
  throw output_file_error(path, step, error_number);
}

// Releases the temporary file on every failure path after it was created.
class TemporaryFile {
 public:
  TemporaryFile(std::string name, int fd) : name_(std::move(name)), fd_(fd) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(name_.c_str());
  }
  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  /// Closes the descriptor; returns 0 or the errno of close(2).
  int close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc == 0 ? 0 : errno;
  }
  void commit() { committed_ = true; }

 private:
  std::string name_;
  int fd_;
  bool committed_ = false;
};

}  // namespace

Error output_file_error(const std::string& path, const std::string& step, int error_number) {
  const std::string what =
      fmt::format("cannot write '{}': {} failed: {}", path, step, std::strerror(error_number));
  switch (error_number) {
    case ENOSPC:
#if defined(EDQUOT) && EDQUOT != ENOSPC
    case EDQUOT:
#endif
      return environment_error(
          what + "; free space (or quota) on its filesystem, or write to another directory");
    case EROFS:
      return environment_error(what +
                               "; the filesystem is read-only: write to a writable filesystem");
    case EIO:
      return environment_error(what + "; the device reported an I/O error: check the disk");
    default:
      return bad_input(what);
  }
}

void check_output_file_path(const std::string& path) {
  // The rename would replace whatever the name points at: refuse anything but a regular file (or
  // a new name), so `-o /dev/null` as root cannot replace the device node with a report.
  struct stat st {};
  if (path.empty() || path == "-") {
    throw bad_input(
        fmt::format("invalid output path '{}': give a file name (without -o the "
                    "result goes to stdout)",
                    path));
  }
  // Named before any work is done, in the words sweep and model have always used: otherwise the
  // first sign would be "creating a temporary file failed" after the report was computed.
  std::error_code ignored;
  const std::filesystem::path parent = std::filesystem::absolute(path, ignored).parent_path();
  if (!std::filesystem::is_directory(parent, ignored)) {
    throw bad_input(fmt::format(
        "invalid output path '{}': directory '{}' {}", path, parent.string(),
        std::filesystem::exists(parent, ignored) ? "is not a directory (a file of that name exists)"
                                                 : "does not exist"));
  }
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    throw bad_input(
        fmt::format("invalid output path '{}': it exists and is not a regular file "
                    "(directory, device, FIFO or symbolic link); give a file name",
                    path));
  }
  // The temporary file and the rename need write and search permission on the directory; a
  // read-only filesystem is the environment's (exit 3), a directory without permission bad input.
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    const int error_number = errno;
    throw output_file_error(
        path, fmt::format("checking that directory '{}' is writable", parent.string()),
        error_number);
  }
}

namespace {

/// The first step of an atomic write: `contents` in a new temporary file beside `path`, written,
/// fsync'ed and closed; the file is removed when the returned object goes without commit().
std::unique_ptr<TemporaryFile> prepare_temporary(const std::string& path,
                                                 const std::string& contents) {
  check_output_file_path(path);
  constexpr int kMaxNameAttempts = 8;
  std::string name;
  int fd = -1;
  for (int attempt = 0; attempt < kMaxNameAttempts && fd < 0; ++attempt) {
    name = temporary_name(path);
    // 0666 before the umask: the same permissions a plain fopen would give the report.
    fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) fail(path, "creating a temporary file", errno);
  }
  if (fd < 0) fail(path, "creating a temporary file", errno);
  auto temporary = std::make_unique<TemporaryFile>(name, fd);

  const char* data = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    const ssize_t written = ::write(temporary->fd(), data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      fail(path, "write", errno);
    }
    data += written;
    left -= static_cast<size_t>(written);
  }
  // Without fsync a crash after the rename can leave the new name pointing at empty blocks.
  if (::fsync(temporary->fd()) != 0) fail(path, "fsync", errno);
  if (const int error_number = temporary->close(); error_number != 0) {
    fail(path, "close", error_number);
  }
  return temporary;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& contents) {
  write_files_atomically({{path, contents}});
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::unique_ptr<TemporaryFile>> prepared;
  for (const auto& [path, contents] : files) prepared.push_back(prepare_temporary(path, contents));
  for (size_t i = 0; i < files.size(); ++i) {
    if (std::rename(prepared[i]->name().c_str(), files[i].first.c_str()) != 0) {
      fail(files[i].first, "rename", errno);
    }
    prepared[i]->commit();
  }
}

namespace {

[[noreturn]] void fail_stdout(int error_number) {
  std::clearerr(stdout);
  throw environment_error(fmt::format("cannot write to standard output: {}",
                                      error_number ? std::strerror(error_number) : "write failed"));
}

}  // namespace

void write_stdout(const std::string& contents) {
  errno = 0;
  const size_t written = std::fwrite(contents.data(), 1, contents.size(), stdout);
  if (written != contents.size() || std::fflush(stdout) != 0) fail_stdout(errno);
}

void flush_stdout() {
  errno = 0;
  // ferror: a write that failed earlier, when the buffer filled, leaves its mark on the stream
  // even when this flush has nothing left to write.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) fail_stdout(errno);
}

}  // namespace rooflinectl
