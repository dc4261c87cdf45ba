// Writing output files so that a reader never sees a partial one (a crash or a full disk during a
// sweep leaves the previous file, or none, but never half a report). POSIX; pure host code.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace rooflinectl {

/// The Error for a failed `step` ("write", "rename", ...) of writing `path`, one line naming the
/// path, the step and strerror(error_number). A full disk or quota (ENOSPC, EDQUOT), a read-only
/// filesystem (EROFS) or an I/O error (EIO) is the environment's (exit 3) and the line says what
/// to do; anything else (EACCES, EISDIR, ENOENT, ...) is a bad output path (exit 2).
Error output_file_error(const std::string& path, const std::string& step, int error_number);

/// Throws a bad-input Error when `path` is empty, "-", lies in a directory that does not exist,
/// or names something that exists and is not a regular file (directory, device node, FIFO,
/// symbolic link): the atomic rename would replace it; and output_file_error's Error when the
/// directory is not writable (EACCES: bad input; EROFS, a read-only filesystem: environment,
/// exit 3). Called by write_file_atomically and by every command that writes a file (sweep,
/// model, layer, plot, report), before it does any work.
void check_output_file_path(const std::string& path);

/// Writes `contents` to standard output and flushes it. A failed write or flush (a full disk, a
/// closed pipe, `> /dev/full`) throws an environment Error (exit 3) "cannot write to standard
/// output: <OS reason>": the output is incomplete through no fault of the input.
void write_stdout(const std::string& contents);

/// Flushes standard output; throws write_stdout's Error when the flush or any earlier write to
/// stdout failed. `main` calls it before exiting, so output printed without write_stdout (help,
/// --version, fmt::print) cannot be lost behind exit code 0.
void flush_stdout();

/// Writes `contents` to `path` atomically: the bytes go to a new temporary file in the same
/// directory (same filesystem, so the rename cannot degrade into a copy), which is fsync'ed and
/// then renamed over `path` (rename(2) replaces the target atomically). On any failure the
/// temporary file is removed, `path` is left as it was, and the Error of output_file_error names
/// `path`, the step that failed and the OS reason (strerror): bad input for e.g. a directory that
/// does not exist, environment for a full disk.
void write_file_atomically(const std::string& path, const std::string& contents);

/// write_file_atomically for several files that belong together (`layer -o R.json --chart
/// C.svg`), as pairs of path and contents: every temporary file is written and fsync'ed before
/// the first rename, so a failure to write any of them (a read-only directory, a full disk)
/// leaves every path as it was. Throws output_file_error's Error naming the path that failed.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace rooflinectl
