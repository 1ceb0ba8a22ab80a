// The collsim program: see tools/cli.hpp.
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <streambuf>
#include <string>
#include <vector>

#include "tools/cli.hpp"

namespace {

// Standard output through write(2), remembering why a write failed: std::cout keeps only that it
// failed, and the reason (a full disk, a closed pipe) belongs in the one-line error.
class StdoutBuffer final : public std::streambuf {
 public:
  StdoutBuffer() { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  /// errno of the first write that failed, 0 when none did.
  [[nodiscard]] int error() const noexcept { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }
  int sync() override {
    for (const char* p = pbase(); p < pptr();) {
      const ::ssize_t n = ::write(STDOUT_FILENO, p, static_cast<std::size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (error_ == 0) error_ = n < 0 ? errno : EIO;
        setp(buffer_.data(), buffer_.data() + buffer_.size());
        return -1;
      }
      p += n;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return 0;
  }

 private:
  std::array<char, 1 << 16> buffer_{};
  int error_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  StdoutBuffer buffer;
  std::streambuf* const standard = std::cout.rdbuf(&buffer);
  const int code = collsim::cli::run(args, std::cout, std::cerr);
  std::cout.flush();
  const bool failed = !std::cout || buffer.error() != 0;
  const int error = buffer.error();
  std::cout.rdbuf(standard);
  if (failed) {
    // A full disk or a closed pipe must not pass for success (a command that stopped for it has
    // said so: one line).
    if (code != collsim::cli::kExitOutput)
      std::cerr << "collsim: error: could not write the output to standard output"
                << (error != 0 ? std::string(": ") + std::strerror(error) : std::string()) << "\n";
    return collsim::cli::kExitOutput;
  }
  return code;
}
