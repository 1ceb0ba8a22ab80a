#include "tools/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "tools/cli.hpp"

namespace collsim::cli {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what, int error) {
  throw OutputError(fmt::format("{}: cannot {}: {}", path.string(), what, std::strerror(error)));
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  // The whole text first: a writer that throws leaves nothing behind on disk.
  std::ostringstream buffer;
  write(buffer);
  const std::string text = std::move(buffer).str();

  // The same folder, so that rename() replaces the file atomically (it never crosses file systems).
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::filesystem::path temp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    temp = dir / fmt::format(".{}.tmp-{}-{}", path.filename().string(), ::getpid(), attempt);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt >= 100)) fail(path, "create a temporary file beside it", errno);
  }
  const auto abandon = [&](std::string_view what) {
    const int error = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    fail(path, what, error);
  };
  for (std::size_t done = 0; done < text.size();) {
    const ::ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) abandon("write it");
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) abandon("write it");
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    fail(path, "write it", error);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    fail(path, "replace it", error);
  }
}

}  // namespace collsim::cli
