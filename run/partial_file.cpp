#include "run/partial_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "run/errors.hpp"

namespace collsim::run {
namespace {

// The process that holds a conflicting fcntl lock on `fd`, or 0 when the system names none (the
// holder is this process, or took only the flock).
pid_t lock_holder(int fd) {
  struct flock query {};
  query.l_type = F_WRLCK;
  query.l_whence = SEEK_SET;
  if (::fcntl(fd, F_GETLK, &query) != 0 || query.l_type == F_UNLCK) return 0;
  return query.l_pid > 0 ? query.l_pid : 0;
}

// True when `fd` is still the file named `path` (a sweep that finished removes its partial file
// between another's open and lock; the lock would then hold a file that no longer has a name).
bool still_named(int fd, const std::filesystem::path& path) {
  struct stat by_fd {}, by_name {};
  return ::fstat(fd, &by_fd) == 0 && ::stat(path.c_str(), &by_name) == 0 && by_fd.st_dev == by_name.st_dev &&
         by_fd.st_ino == by_name.st_ino;
}

}  // namespace

PartialFile::PartialFile(const std::filesystem::path& path, const std::filesystem::path& output) : path_(path) {
  const auto fail = [&](int error) {
    return OutputError(fmt::format("{}: {}: its partial file {} cannot be opened: {}", ref(Field::Output), output.string(), path.string(),
                                   std::strerror(error)));
  };
  for (int attempt = 0;; ++attempt) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    created_ = fd_ >= 0;
    if (fd_ < 0 && errno == EEXIST) fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ < 0) throw fail(errno);
    // A file system without locks (flock fails otherwise) still gets its sweep, unguarded.
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
      const pid_t holder = lock_holder(fd_);
      ::close(fd_);
      fd_ = -1;
      throw OutputError(fmt::format("{}: another sweep{} is writing {} (it holds the lock of {}); expected it to "
                                    "finish first, or another {} FILE",
                                    ref(Field::Output), holder > 0 ? fmt::format(" (pid {})", holder) : std::string(), output.string(),
                                    path.string(), ref(Field::Output)));
    }
    if (still_named(fd_, path)) break;
    ::close(fd_);
    fd_ = -1;
    if (attempt == 3) throw fail(ESTALE);
  }
  // Names this process to a second sweep (flock cannot); best effort, the flock above excludes.
  struct flock record {};
  record.l_type = F_WRLCK;
  record.l_whence = SEEK_SET;
  (void)::fcntl(fd_, F_SETLK, &record);
  struct stat st {};
  if (::fstat(fd_, &st) == 0) size_ = static_cast<std::uint64_t>(st.st_size);
}

PartialFile::~PartialFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string PartialFile::read_all() const {
  std::string text;
  char buffer[1 << 16];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd_, buffer, sizeof buffer, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw OutputError(fmt::format("{}: cannot be read: {}", path_.string(), std::strerror(errno)));
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
}

void PartialFile::truncate(std::uint64_t size) {
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0)
    throw OutputError(fmt::format("{}: cannot be written: {}", path_.string(), std::strerror(errno)));
  size_ = size;
}

int PartialFile::append(std::string_view text) {
  std::uint64_t at = size_;
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::pwrite(fd_, text.data() + done, text.size() - done, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      (void)::ftruncate(fd_, static_cast<off_t>(size_));  // only whole lines stay
      return error;
    }
    done += static_cast<std::size_t>(n);
    at += static_cast<std::uint64_t>(n);
  }
  size_ = at;
  return 0;
}

void PartialFile::remove() {
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT)
    throw OutputError(fmt::format("{}: cannot be removed: {}", path_.string(), std::strerror(errno)));
}

}  // namespace collsim::run
