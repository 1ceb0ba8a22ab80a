#include "tools/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
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

// Writes all of `text` to `fd`; false with errno set on failure.
bool write_all(int fd, std::string_view text) {
  for (std::size_t done = 0; done < text.size();) {
    const ::ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

OutputTarget output_target(const std::filesystem::path& path) {
  struct ::stat followed {};
  if (::stat(path.c_str(), &followed) != 0) return {path, false};  // new, dangling or unreachable: tried in place
  if (!S_ISREG(followed.st_mode)) return {path, true};
  struct ::stat own {};
  if (::lstat(path.c_str(), &own) == 0 && S_ISLNK(own.st_mode)) {
    std::error_code ec;
    auto target = std::filesystem::canonical(path, ec);
    if (!ec) return {std::move(target), false};
  }
  return {path, false};
}

void write_output(const std::filesystem::path& path, const std::function<void(int fd)>& fill) {
  const OutputTarget target = output_target(path);
  if (target.direct) {
    // O_TRUNC is ignored by FIFOs and terminals and has no effect on /dev/null; opening a FIFO
    // waits for its reader, as any program writing to it does.
    const int fd = ::open(target.path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) fail(path, "open it for writing", errno);
    try {
      fill(fd);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) fail(path, "write it", errno);
    return;
  }
  // The same folder as the target, so that rename() replaces it atomically (never across file systems).
  const std::filesystem::path& file = target.path;
  const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  std::filesystem::path temp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    temp = dir / fmt::format(".{}.tmp-{}-{}", file.filename().string(), ::getpid(), attempt);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt >= 100)) fail(path, "create a temporary file beside it", errno);
  }
  try {
    fill(fd);
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  const auto abandon = [&](std::string_view what, int error) {
    ::unlink(temp.c_str());
    fail(path, what, error);
  };
  if (::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    abandon("write it", error);
  }
  if (::close(fd) != 0) abandon("write it", errno);
  if (::rename(temp.c_str(), file.c_str()) != 0) abandon("replace it", errno);
}

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  std::ostringstream buffer;
  write(buffer);
  const std::string text = std::move(buffer).str();
  write_output(path, [&](int fd) {
    if (!write_all(fd, text)) fail(path, "write it", errno);
  });
}

}  // namespace collsim::cli
