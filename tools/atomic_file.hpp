// Writing output files atomically: readers see the old file or the whole new one, never a part.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>

namespace collsim::cli {

/// Calls `write` on a stream to a new temporary file in `path`'s folder (".NAME.tmp-PID-K",
/// created exclusively, permissions 0666 less the umask), flushes it to disk, then renames it over
/// `path`. On any failure the temporary file is removed, `path` is left as it was, and OutputError
/// (tools/cli.hpp) is thrown naming `path` and the system's reason.
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

}  // namespace collsim::cli
