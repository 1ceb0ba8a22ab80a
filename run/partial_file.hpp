// The partial file of a sweep to -o FILE (".FILE.partial", run/job_runner.hpp): opened or
// created, locked so that a second sweep to the same file is refused while the first runs, and
// appended one whole line at a time, every write checked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace collsim::run {

/// An open, locked partial file; the lock is held until the object is destroyed.
class PartialFile {
 public:
  /// Opens `path` for reading and writing, creating it (empty) when it does not exist, and locks
  /// it (flock, and an fcntl lock that lets a second sweep name this process). Throws OutputError
  /// naming `output` (the sweep's -o FILE) when it cannot be opened, and when another sweep holds
  /// the lock: "another sweep (pid P) is writing ..." (the pid when the system says it). On a
  /// file system without locks the file is used unlocked.
  PartialFile(const std::filesystem::path& path, const std::filesystem::path& output);
  ~PartialFile();
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;

  /// True when the constructor created the file (there was none).
  [[nodiscard]] bool created() const { return created_; }
  /// The file's whole content; throws OutputError when it cannot be read.
  [[nodiscard]] std::string read_all() const;
  /// Cuts the file to its first `size` bytes (appends go after them); throws OutputError.
  void truncate(std::uint64_t size);
  /// Appends `text` whole. On failure returns the errno and cuts the file back to its size before
  /// the call, so that it still holds whole lines only; returns 0 on success.
  [[nodiscard]] int append(std::string_view text);
  /// Removes the file from its folder (it stays locked until destruction); throws OutputError.
  void remove();

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;  ///< where the next append goes: the bytes known to be whole lines
  bool created_ = false;
};

}  // namespace collsim::run
