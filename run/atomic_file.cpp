#include "run/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <cstdlib>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "run/errors.hpp"

namespace collsim::run {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what, int error) {
  throw OutputError(fmt::format("{}: cannot {}: {}", path.string(), what, std::strerror(error)));
}

// Takes the old target's permission bits, and its owner and group where allowed, onto the new file
// `fd`, so that replacing a 0600 file does not leave it readable by all. Ownership first: a chown
// by anyone but root clears the set-user/group-ID bits, which the chmod then puts back. A chown is
// allowed only to root (or into one's own groups); without it the new file is the writer's, as
// after any editor's save, which is why its failure is not an error. False (errno set) when the new
// file cannot be given the old one's mode: writing on would widen who may read it.
bool keep_mode_and_owner(int fd, const struct ::stat& old) {
  if (old.st_uid != ::geteuid() || old.st_gid != ::getegid()) {
    const int refused = ::fchown(fd, old.st_uid, old.st_gid);  // allowed to fail, as said above
    (void)refused;
  }
  const mode_t wanted = old.st_mode & 07777;
  if (::fchmod(fd, wanted) == 0) return true;
  // A file system without Unix permissions (vfat) may refuse every chmod; its files all have one
  // mode, so the new file has the old one's already, and that is all that is asked.
  const int error = errno;
  struct ::stat now {};
  if (::fstat(fd, &now) == 0 && (now.st_mode & 07777) == wanted) return true;
  errno = error;
  return false;
}

// `found` says what is wrong with the folder that `path` goes in.
[[noreturn]] void unusable_folder(std::string_view flag, const std::filesystem::path& path, std::string_view found) {
  throw OutputError(
      fmt::format("{}: {} (for {}); expected an existing, writable folder", flag, found, path.string()));
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

void check_output_path(std::string_view flag, const std::filesystem::path& path) {
  struct ::stat own {};
  if (::stat(path.c_str(), &own) == 0 && S_ISDIR(own.st_mode))
    throw OutputError(fmt::format("{}: {} is a folder; expected a file to write", flag, path.string()));
  const OutputTarget target = output_target(path);
  if (target.direct) {
    if (::access(target.path.c_str(), W_OK) != 0)
      throw OutputError(fmt::format("{}: {} cannot be written: {}; expected a writable file", flag, path.string(),
                                    std::strerror(errno)));
    return;
  }
  // write_output creates its temporary file in this folder and renames it into place.
  const std::filesystem::path folder = target.path.has_parent_path() ? target.path.parent_path() : ".";
  struct ::stat dir {};
  const std::string name = folder.string();
  if (::stat(folder.c_str(), &dir) != 0)
    unusable_folder(flag, path,
                    errno == ENOENT ? fmt::format("folder {} does not exist", name)
                                    : fmt::format("folder {} cannot be reached: {}", name, std::strerror(errno)));
  if (!S_ISDIR(dir.st_mode)) unusable_folder(flag, path, fmt::format("{} is not a folder", name));
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    unusable_folder(flag, path, fmt::format("folder {} is not writable: {}", name, std::strerror(errno)));
  // Permission bits are not the whole story (/proc, a read-only mount, a full inode table): create
  // and remove a file there, as write_output will, so the run fails now and not after its work.
  std::string probe = (folder / ".collsim-probe-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) unusable_folder(flag, path, fmt::format("no file can be created in folder {}: {}", name, std::strerror(errno)));
  ::close(fd);
  ::unlink(probe.c_str());
}

void write_bytes(const std::filesystem::path& path, int fd, std::string_view bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ::ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(path, "write it", n == 0 ? EIO : errno);
    done += static_cast<std::size_t>(n);
  }
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
  // Every failure from here on closes the temporary file (fd, while open) and removes it.
  const auto abandon = [&](std::string_view what, int error) {
    if (fd >= 0) ::close(fd);
    ::unlink(temp.c_str());
    fail(path, what, error);
  };
  struct ::stat old {};
  if (::stat(file.c_str(), &old) == 0 && S_ISREG(old.st_mode) && !keep_mode_and_owner(fd, old))
    abandon("give the new file the old one's permissions", errno);
  try {
    fill(fd);
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  if (::fsync(fd) != 0) abandon("write it", errno);
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) abandon("write it", errno);
  if (::rename(temp.c_str(), file.c_str()) != 0) abandon("replace it", errno);
}

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  std::ostringstream buffer;
  write(buffer);
  const std::string text = std::move(buffer).str();
  write_output(path, [&](int fd) { write_bytes(path, fd, text); });
}

}  // namespace collsim::run
