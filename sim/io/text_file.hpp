// Reading a whole input file, with the same checks and messages for every reader (topology,
// parameter, schedule and nccl-tests log files, CSVs): a directory, a missing or unreadable file
// and a read error are named as such, never passed on as empty text ("unexpected end of input").
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace collsim::io {

/// A file that could not be read. what() is one line: "PATH is a directory; expected WHAT",
/// "PATH cannot be read (REASON); expected WHAT", with the OS's reason.
class FileReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The bytes of the file at `path`. `expected` says what it should be ("a topology JSON file"), for
/// the message. Throws FileReadError for a directory (an ifstream opens one and reads nothing, which
/// would pass for an empty file), a file that does not exist or cannot be opened, a read error, and
/// a file of more than `max_bytes` bytes ("PATH holds more than N bytes; expected WHAT"), which is
/// read no further: /dev/zero as an input fails at once instead of filling memory.
std::string read_text_file(const std::filesystem::path& path, std::string_view expected,
                           std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max());

}  // namespace collsim::io
