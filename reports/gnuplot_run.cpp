#include "reports/gnuplot_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "reports/chart.hpp"

extern char** environ;

namespace collsim::reports {
namespace {

constexpr std::size_t kMaxMessages = 64 * 1024;
constexpr std::size_t kTail = 32;

[[noreturn]] void pipe_failure(std::string_view what, int error) {
  throw ChartError(fmt::format("gnuplot: cannot {}: {}", what, std::strerror(error)));
}

// One end of a pipe, closed when it goes out of scope or on close().
class Fd {
 public:
  Fd() = default;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { close(); }
  int get() const { return fd_; }
  int* put() { return &fd_; }
  bool open() const { return fd_ >= 0; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// A pipe whose ends are closed on exec (posix_spawn's dup2 clears that flag on the child's copy).
void make_pipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) pipe_failure("make a pipe", errno);
  *read_end.put() = fds[0];
  *write_end.put() = fds[1];
}

// The gnuplot child: killed and reaped unless wait() has reaped it, so an exception from the sink
// leaves no process behind.
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    (void)wait();
  }
  int wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = 0;
    return status;
  }

 private:
  pid_t pid_;
};

// Blocks SIGPIPE in this thread while it lives, so that writing the script to a gnuplot that has
// stopped reading returns EPIPE instead of ending collsim. A SIGPIPE raised meanwhile is taken off
// before the old mask comes back (one that was pending before is left alone).
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;
  ~SigpipeBlocked() {
    if (!was_pending_) {
      const timespec now{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &now) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t pipe_{};
  sigset_t old_{};
  bool was_pending_ = false;
};

// Reads what `fd` has; false at its end (or on a read error, which ends it too).
bool drain(int fd, std::string& into) {
  char buffer[64 * 1024];
  const ::ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  into.assign(buffer, static_cast<std::size_t>(n));
  return true;
}

}  // namespace

GnuplotRun run_gnuplot(std::string_view script, const std::function<void(std::string_view)>& sink) {
  Fd in_read, in_write, out_read, out_write, err_read, err_write;
  make_pipe(in_read, in_write);
  make_pipe(out_read, out_write);
  make_pipe(err_read, err_write);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.get(), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), STDERR_FILENO);
  char arg0[] = "gnuplot";
  char* argv[] = {arg0, nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw ChartError(fmt::format("gnuplot: cannot be started: {}", std::strerror(spawned)));
  Child child(pid);
  // Only gnuplot holds these ends now: its exit ends our reads, its not reading ends our writes.
  in_read.close();
  out_write.close();
  err_write.close();
  if (::fcntl(in_write.get(), F_SETFL, O_NONBLOCK) != 0) pipe_failure("set up its input", errno);
  const SigpipeBlocked blocked;

  GnuplotRun run;
  std::size_t sent = 0;
  if (script.empty()) in_write.close();
  std::string piece;
  // gnuplot may write before it has read all of its script (and its messages at any time), so its
  // three pipes are served together, never one after the other.
  while (out_read.open() || err_read.open()) {
    pollfd fds[3];
    nfds_t n = 0;
    const auto watch = [&](const Fd& fd, short events) {
      if (fd.open()) fds[n++] = {fd.get(), events, 0};
    };
    watch(in_write, POLLOUT);
    watch(out_read, POLLIN);
    watch(err_read, POLLIN);
    if (::poll(fds, n, -1) < 0) {
      if (errno == EINTR) continue;
      pipe_failure("wait for its output", errno);
    }
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in_write.get()) {
        const ::ssize_t w = ::write(in_write.get(), script.data() + sent, std::min<std::size_t>(script.size() - sent, 64 * 1024));
        if (w > 0) sent += static_cast<std::size_t>(w);
        // EPIPE: gnuplot stopped reading (an error in the script); its exit status says why.
        if (sent == script.size() || (w < 0 && errno != EAGAIN && errno != EINTR)) in_write.close();
      } else if (fds[i].fd == out_read.get()) {
        if (!drain(out_read.get(), piece)) {
          out_read.close();
        } else if (!piece.empty()) {
          run.bytes += piece.size();
          run.tail += piece.substr(piece.size() - std::min(kTail, piece.size()));
          if (run.tail.size() > kTail) run.tail.erase(0, run.tail.size() - kTail);
          sink(piece);
          piece.clear();
        }
      } else if (fds[i].fd == err_read.get()) {
        if (!drain(err_read.get(), piece)) {
          err_read.close();
        } else {
          run.messages += piece.substr(0, kMaxMessages - std::min(kMaxMessages, run.messages.size()));
          piece.clear();
        }
      }
    }
  }
  in_write.close();
  const int status = child.wait();
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return run;
}

}  // namespace collsim::reports
