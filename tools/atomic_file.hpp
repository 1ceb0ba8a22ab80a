// Writing output files atomically: readers see the old file or the whole new one, never a part.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>

namespace collsim::cli {

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

/// Writes the output file `path` by calling `fill` with a descriptor open for writing. For a
/// regular (or new) file that is a new temporary file in the target's folder (".NAME.tmp-PID-K",
/// created exclusively, permissions 0666 less the umask), flushed to disk and then renamed over
/// the target (see output_target); a device or FIFO is opened and written directly. On any failure
/// the temporary file is removed and the target left as it was; an exception from `fill` passes
/// through, a system error is thrown as OutputError (tools/cli.hpp) naming `path` and the reason.
void write_output(const std::filesystem::path& path, const std::function<void(int fd)>& fill);

/// write_output with the text that `write` puts on a stream (made in full first, so a writer that
/// throws leaves nothing behind on disk).
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

}  // namespace collsim::cli
