#include "inject/raw_writer.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rooflinectl {

std::string raw_record_file_name(long pid) {
  return fmt::format("rooflinectl-profile-{}.jsonl", pid);
}

RawWriter::RawWriter(const std::string& dir) {
  const std::string path = dir + "/" + raw_record_file_name(static_cast<long>(getpid()));
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) error_ = fmt::format("cannot create {}: {}", path, std::strerror(errno));
}

RawWriter::~RawWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void RawWriter::write_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (file_ == nullptr) return;
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fputc('\n', file_);
  std::fflush(file_);
}

}  // namespace rooflinectl
