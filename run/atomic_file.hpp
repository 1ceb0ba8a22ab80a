// Writing output files atomically: readers see the old file or the whole new one, never a part.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

namespace collsim::run {

/// Where and how an output path is written.
struct OutputTarget {
  std::filesystem::path path;  ///< the file to write: `path` itself, or a symlink's final target
  bool direct = false;         ///< true: written through in place, never replaced
};

/// The target of output path `path`. A path that exists and, once symlinks are followed, is not a
/// regular file (a device such as /dev/null, a FIFO, a socket) is written through directly: it
/// must stay what it is. A symlink to a regular file is replaced at its target, so the link stays.
/// Anything else (a regular file, a missing or dangling path) is replaced atomically in place.
OutputTarget output_target(const std::filesystem::path& path);

/// Checks, before any work, that output path `path` (given with flag `flag`, e.g. "--trace") can
/// be written: it is not a folder, and the folder it goes in (that of a symlink's final target)
/// exists, is a folder and is writable; a device or FIFO must be writable itself. Throws
/// OutputError (exit 74) naming the flag, the folder or file, what was found and what was expected.
void check_output_path(std::string_view flag, const std::filesystem::path& path);

/// Writes the output file `path` by calling `fill` with a descriptor open for writing. For a
/// regular (or new) file that is a new temporary file in the target's folder (".NAME.tmp-PID-K",
/// created exclusively), flushed to disk and then renamed over the target (see output_target). It
/// takes an existing target's permission bits (and its owner and group where this process may set
/// them); a new file gets 0666 less the umask. A hard link to the old file keeps the old content:
/// the target is replaced, not rewritten. A device or FIFO is opened and written directly. On any
/// failure the temporary file is removed and the target left as it was; an exception from `fill`
/// passes through, a system error is thrown as OutputError (tools/cli.hpp) naming `path` and the
/// reason.
void write_output(const std::filesystem::path& path, const std::function<void(int fd)>& fill);

/// Writes all of `bytes` to descriptor `fd` (inside write_output's `fill`). Throws OutputError
/// naming `path` (the output file, not a temporary one) and the OS reason when a write fails.
void write_bytes(const std::filesystem::path& path, int fd, std::string_view bytes);

/// write_output with the text that `write` puts on a stream (made in full first, so a writer that
/// throws leaves nothing behind on disk).
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

}  // namespace collsim::run
