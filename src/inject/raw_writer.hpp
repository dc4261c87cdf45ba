// The injection library's output: one raw record file per process,
// <dir>/rooflinectl-profile-<pid>.jsonl, one JSON object per line (io/profile_json.hpp), each
// line flushed as written so that a killed program still leaves every record before the kill.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>

namespace rooflinectl {

/// The file name of process `pid`'s raw records in the output directory.
std::string raw_record_file_name(long pid);

class RawWriter {
 public:
  /// Opens (creates, truncates) the file of this process in `dir`; a failure leaves the writer
  /// closed and says why in error().
  explicit RawWriter(const std::string& dir);
  ~RawWriter();
  RawWriter(const RawWriter&) = delete;
  RawWriter& operator=(const RawWriter&) = delete;
  /// Appends `line` and a newline and flushes; thread-safe; does nothing when closed.
  void write_line(const std::string& line);
  bool is_open() const { return file_ != nullptr; }
  const std::string& error() const { return error_; }

 private:
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
  std::string error_;
};

}  // namespace rooflinectl
