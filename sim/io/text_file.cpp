#include "sim/io/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

namespace collsim::io {

std::string read_text_file(const std::filesystem::path& path, std::string_view expected) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw FileReadError(fmt::format("{} is a directory; expected {}", path.string(), expected));
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int e = errno;
    throw FileReadError(fmt::format("{} cannot be read ({}); expected {}", path.string(),
                                    e != 0 ? std::strerror(e) : "cannot open it", expected));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    const int e = errno;
    throw FileReadError(fmt::format("{} cannot be read ({}); expected {}", path.string(),
                                    e != 0 ? std::strerror(e) : "read error", expected));
  }
  return text.str();
}

}  // namespace collsim::io
