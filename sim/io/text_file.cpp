#include "sim/io/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <algorithm>
#include <vector>
#include <system_error>

#include <fmt/format.h>

namespace collsim::io {

std::string read_text_file(const std::filesystem::path& path, std::string_view expected, std::uint64_t max_bytes) {
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
  // In blocks, so that a bound stops a device or a huge file after max_bytes, not at its end.
  std::string text;
  std::vector<char> block(std::size_t{1} << 20);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got > max_bytes - std::min<std::uint64_t>(max_bytes, text.size()))
      throw FileReadError(fmt::format("{} holds more than {} bytes; expected {}", path.string(), max_bytes, expected));
    text.append(block.data(), got);
  }
  if (in.bad()) {
    const int e = errno;
    throw FileReadError(fmt::format("{} cannot be read ({}); expected {}", path.string(),
                                    e != 0 ? std::strerror(e) : "read error", expected));
  }
  return text;
}

}  // namespace collsim::io
