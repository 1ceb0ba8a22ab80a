// Reading a whole input file, with the same checks and messages for every reader (topology,
// parameter, schedule and nccl-tests log files, CSVs): a directory, a missing or unreadable file
// and a read error are named as such, never passed on as empty text ("unexpected end of input").
#pragma once

#include <filesystem>
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
/// would pass for an empty file), a file that does not exist or cannot be opened, and a read error.
std::string read_text_file(const std::filesystem::path& path, std::string_view expected);

}  // namespace collsim::io
