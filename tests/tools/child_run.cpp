#include "tests/tools/child_run.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <catch2/catch.hpp>

extern char** environ;

namespace collsim::testing {

ChildRun run_collsim_child(const std::vector<std::string>& args, const ChildOptions& options) {
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  std::vector<std::string> all{COLLSIM_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e)
    if (!options.path || std::strncmp(*e, "PATH=", 5) != 0) env_text.emplace_back(*e);
  if (options.path) env_text.push_back("PATH=" + *options.path);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);

  int err_pipe[2];
  REQUIRE(::pipe(err_pipe) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (options.file_size_limit) {
      const rlimit small{*options.file_size_limit, *options.file_size_limit};
      ::setrlimit(RLIMIT_FSIZE, &small);
      ::signal(SIGXFSZ, SIG_IGN);  // an ignored signal stays ignored across exec
    }
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::close(err_pipe[0]);
    ::execve(COLLSIM_BINARY, argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(err_pipe[1]);
  ChildRun run;
  char buffer[4096];
  for (::ssize_t n; (n = ::read(err_pipe[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    run.err.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(err_pipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return run;
}

}  // namespace collsim::testing
