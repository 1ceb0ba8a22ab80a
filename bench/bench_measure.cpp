#include "bench/bench_measure.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <new>
#include <stdexcept>

#include <fmt/format.h>

namespace collsim::bench {
namespace {

// What the child sends back through the pipe: a fixed record, then `message_length` bytes of text.
struct Record {
  RunStatus status;
  double wall_s;
  double cpu_s;
  std::uint64_t events;
  std::uint64_t ops;
  bool has_simulated;
  std::int64_t simulated_ps;
  std::uint32_t message_length;
};

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void write_all(int fd, const void* data, std::size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t k = ::write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return;  // the parent is gone; nothing to report to
    p += k;
    n -= static_cast<std::size_t>(k);
  }
}

std::string read_all(int fd) {
  std::string data;
  char buffer[4096];
  for (;;) {
    const ssize_t k = ::read(fd, buffer, sizeof buffer);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    data.append(buffer, static_cast<std::size_t>(k));
  }
  return data;
}

// The child: run, measure, report, and leave without running the parent's exit handlers.
[[noreturn]] void child(int fd, const std::function<Work()>& workload, const RunLimits& limits) {
  if (limits.memory_bytes > 0) {
    const rlimit limit{limits.memory_bytes, limits.memory_bytes};
    setrlimit(RLIMIT_AS, &limit);
  }
  // SIGALRM's default action ends the process; the parent reads that as a timeout.
  if (limits.time_s > 0) ::alarm(limits.time_s);
  Record r{};
  std::string message;
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  try {
    const Work w = workload();
    r.status = RunStatus::Ok;
    r.events = w.events;
    r.ops = w.ops;
    r.has_simulated = w.simulated.has_value();
    r.simulated_ps = w.simulated ? w.simulated->count() : 0;
  } catch (const NotAvailable& e) {
    r.status = RunStatus::NotAvailable;
    message = e.what();
  } catch (const std::bad_alloc&) {
    r.status = RunStatus::Failed;
    message = limits.memory_bytes > 0 ? fmt::format("out of memory (limit {} MiB)", limits.memory_bytes >> 20)
                                      : std::string("out of memory");
  } catch (const std::exception& e) {
    r.status = RunStatus::Failed;
    message = e.what();
  }
  r.cpu_s = cpu_seconds() - cpu0;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  r.message_length = static_cast<std::uint32_t>(message.size());
  write_all(fd, &r, sizeof r);
  write_all(fd, message.data(), message.size());
  ::close(fd);
  _exit(0);
}

}  // namespace

Measurement measure_in_child(const std::function<Work()>& workload, const RunLimits& limits) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(fmt::format("bench: cannot make a pipe: {}", std::strerror(errno)));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("bench: cannot fork: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], workload, limits);
  }
  ::close(fds[1]);
  const std::string data = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }

  Measurement m;
  m.peak_rss_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
  Record r{};
  if (data.size() < sizeof r && WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
    m.status = RunStatus::TimedOut;
    m.message = fmt::format("stopped after the time limit of {} s", limits.time_s);
    return m;
  }
  if (data.size() < sizeof r) {
    m.status = RunStatus::Failed;
    m.message = WIFSIGNALED(status) ? fmt::format("the run died of signal {} ({})", WTERMSIG(status),
                                                  strsignal(WTERMSIG(status)))
                                    : std::string("the run ended without reporting");
    return m;
  }
  std::memcpy(&r, data.data(), sizeof r);
  m.status = r.status;
  m.wall_s = r.wall_s;
  m.cpu_s = r.cpu_s;
  m.work = Work{r.events, r.ops, r.has_simulated ? std::optional<Time>(Time{r.simulated_ps}) : std::nullopt};
  m.message = data.substr(sizeof r, r.message_length);
  return m;
}

}  // namespace collsim::bench
