#include "run/job_runner.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <csignal>
#include <cstdio>
#include <exception>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "sim/units/saturate.hpp"
#include "run/atomic_file.hpp"
#include "run/partial_file.hpp"
#include "sim/engine.hpp"
#include "run/errors.hpp"

namespace collsim::run {
namespace {

// A signal handler can only reach a global; it is the one piece of global state, set by the
// handler and read by the workers, and reset at the start of every run.
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler needs a lock-free flag");

extern "C" void on_stop_signal(int sig) { g_stop_signal.store(sig); }

// Catches SIGINT and SIGTERM (Ctrl-C; a batch system's time limit) for its lifetime.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal.store(0);
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

constexpr std::string_view kMagic = "collsim sweep partial v1 ";

// Records of the partial file are one line each: "JOB ok|skip TEXT" or "JOB note TEXT\tNOTE", TEXT
// and NOTE with \, line breaks and tabs escaped.
std::string escape(std::string_view s) {
  std::string e;
  for (char c : s)
    e += c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : std::string(1, c);
  return e;
}

std::optional<std::string> unescape(std::string_view s) {
  std::string u;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      u += s[i];
      continue;
    }
    if (++i == s.size()) return std::nullopt;
    if (s[i] == '\\') u += '\\';
    else if (s[i] == 'n') u += '\n';
    else if (s[i] == 'r') u += '\r';
    else if (s[i] == 't') u += '\t';
    else return std::nullopt;
  }
  return u;
}

std::string record_line(std::size_t job, const JobOutcome& o) {
  if (!o.note.empty()) return fmt::format("{} note {}\t{}\n", job, escape(o.text), escape(o.note));
  return fmt::format("{} {} {}\n", job, o.skipped ? "skip" : "ok", escape(o.text));
}

// Reads the text of partial file `path`: the outcomes it holds, and how many of its bytes are
// whole lines (a run killed while writing leaves half a line, which is dropped).
std::uintmax_t load_partial(const std::string& text, const std::filesystem::path& path, const SweepRunSpec& spec,
                            std::vector<std::optional<JobOutcome>>& outcomes) {
  const auto bad = [&](std::size_t line, std::string_view what) {
    return RequestError(Field::Resume, path.string(),
                        ref(Field::Resume) + fmt::format(": {} line {}: {}; expected a partial file of this sweep, or delete it",
                                                         path.string(), line, what));
  };
  std::size_t pos = 0;
  std::size_t line = 0;
  while (true) {
    const auto nl = text.find('\n', pos);
    if (nl == std::string::npos) break;
    const std::string_view l(text.data() + pos, nl - pos);
    ++line;
    if (line == 1) {
      if (l != std::string(kMagic) + spec.fingerprint)
        throw RequestError(Field::Resume, path.string(), ref(Field::Resume) + fmt::format(": {} was written by a different sweep (other topologies, sizes, "
                                     "algorithms, options or shard); expected the same command, or delete it",
                                     path.string()));
    } else {
      const auto sp1 = l.find(' ');
      const auto sp2 = sp1 == std::string_view::npos ? sp1 : l.find(' ', sp1 + 1);
      if (sp2 == std::string_view::npos) throw bad(line, "found no \"JOB ok|skip|note\" record");
      std::size_t job = 0;
      try {
        job = std::stoull(std::string(l.substr(0, sp1)));
      } catch (const std::exception&) {
        throw bad(line, "found no job number");
      }
      const auto kind = l.substr(sp1 + 1, sp2 - sp1 - 1);
      std::string_view rest = l.substr(sp2 + 1), note_text;
      if (kind == "note") {
        const auto tab = rest.find('\t');
        if (tab == std::string_view::npos) throw bad(line, "found a note record without its note");
        note_text = rest.substr(tab + 1);
        rest = rest.substr(0, tab);
      }
      auto payload = unescape(rest);
      auto note = unescape(note_text);
      if (job >= spec.count || (kind != "ok" && kind != "skip" && kind != "note") || !payload || !note)
        throw bad(line, "found a malformed record");
      outcomes[job] = JobOutcome{kind == "skip", std::move(*payload), std::move(*note)};
    }
    pos = nl + 1;
  }
  if (line == 0) throw bad(1, "found no header line");
  return pos;
}

std::string duration_text(double seconds) {
  // An estimate may be inf or NaN (no row timed yet): saturate rather than convert out of range.
  const auto s = saturating_cast<std::uint64_t>(std::round(seconds));
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{}:{:02}", s / 60, s % 60);
}

// The jobs that were skipped, ascending.
std::vector<std::size_t> skipped_jobs(const std::vector<std::optional<JobOutcome>>& outcomes) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    if (outcomes[i] && outcomes[i]->skipped) out.push_back(i);
  return out;
}

}  // namespace

std::filesystem::path partial_path(const std::filesystem::path& output) {
  return output.parent_path() / ("." + output.filename().string() + ".partial");
}

SweepRunReport run_jobs(const SweepRunSpec& spec, const Job& job,
                        std::ostream& out, std::ostream& err) {
  SweepRunReport report;
  std::vector<std::optional<JobOutcome>> outcomes(spec.count);
  std::optional<PartialFile> partial;
  // The output is checked before any row runs, as every command's are (atomic_file.hpp): a folder
  // in its place, a missing or unwritable folder, is one error now, with no partial file left.
  if (spec.output) check_output_path(ref(Field::Output), *spec.output);
  // A device or FIFO (-o /dev/null) is written through, never replaced (atomic_file.hpp): it gets
  // no partial file beside it, which would land in /dev, or fail where that is not writable.
  const bool to_device = spec.output && output_target(*spec.output).direct;
  const bool keeps_partial = spec.output && !to_device;
  if (to_device && spec.resume)
    throw RequestError(Field::Resume, spec.output->string(),
                       fmt::format("{0}: {1} {2} is not a regular file (a device or FIFO), so a sweep to it keeps no "
                                   "partial file to resume from; expected {1} FILE",
                                   ref(Field::Resume), ref(Field::Output), spec.output->string()));
  if (keeps_partial) {
    report.partial = partial_path(*spec.output);
    // Opened and locked before it is read: a sweep that still runs holds the lock, and is named.
    partial.emplace(report.partial, *spec.output);
    if (!partial->created() && !spec.resume)
      throw RequestError(Field::Output, spec.output->string(),
                         fmt::format("{}: {} holds an interrupted run of a sweep to {}; expected {} to continue "
                                     "it, or delete it to start again",
                                     ref(Field::Output), report.partial.string(), spec.output->string(), ref(Field::Resume)));
    if (!partial->created()) {
      partial->truncate(load_partial(partial->read_all(), report.partial, spec, outcomes));
    } else {
      if (spec.resume) err << render(fmt::format("collsim: {}: no partial file {}; starting the sweep from the beginning\n",
                                          ref(Field::Resume), report.partial.string()), spec.spelling);
      if (const int error = partial->append(std::string(kMagic) + spec.fingerprint + "\n")) {
        partial->remove();  // empty: it would pass for an interrupted run
        throw OutputError(fmt::format("{}: {}: cannot be written: {}", ref(Field::Output), report.partial.string(), std::strerror(error)));
      }
    }
  } else if (spec.resume) {
    throw RequestError(Field::Resume, "", fmt::format("{}: needs {} FILE (an interrupted sweep to standard output keeps no partial file)", ref(Field::Resume), ref(Field::Output)));
  }

  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < spec.count; ++i)
    if (!outcomes[i]) todo.push_back(i);
  const std::size_t already = spec.count - todo.size();

  std::mutex mutex;
  std::condition_variable changed;
  std::size_t done = already;
  std::size_t printed = 0;  // jobs whose records went to `out` (standard output mode), in job order
  std::size_t exited = 0;
  std::atomic<std::size_t> next{0};
  std::optional<std::pair<std::size_t, std::exception_ptr>> failure;
  // The first write that failed, as one line; no job starts after it (`halt`).
  std::optional<std::string> write_failure;
  std::atomic<bool> halt{false};
  // Standard output gets the header with the first record (or at the end), so a sweep that fails
  // for having no row to show prints nothing.
  bool header_out = false;
  const auto print = [&](const std::string& record) {
    errno = 0;
    if (!header_out) out << spec.header;
    header_out = true;
    out << record << std::flush;  // a reader of the pipe sees each row, and a failed write shows at once
    if (!out && !write_failure) {
      write_failure =
          fmt::format("standard output: cannot be written{}", errno != 0 ? ": " + std::string(std::strerror(errno)) : "");
      halt.store(true);
    }
  };

  StopSignals signals;
  // Set from g_stop_signal by the waiting loop below: the running jobs end within a few thousand
  // events (sim::RunOptions::stop) instead of running to their end, and run again on --resume.
  std::atomic<bool> cancel{false};
  const auto worker = [&] {
    while (g_stop_signal.load() == 0 && !halt.load()) {
      const std::size_t k = next.fetch_add(1);
      if (k >= todo.size()) break;
      const std::size_t i = todo[k];
      JobOutcome o;
      try {
        o = job(i, cancel);
      } catch (const sim::Stopped&) {
        break;  // stopped by a signal: not done
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure || failure->first > i) failure.emplace(i, std::current_exception());
        halt.store(true);
        break;
      }
      std::lock_guard lock(mutex);
      if (write_failure) break;  // another worker's write failed while this job ran: it is not kept
      if (partial) {
        if (const int error = partial->append(record_line(i, o))) {
          write_failure = fmt::format("{}: {}: cannot be written: {}", ref(Field::Output), report.partial.string(), std::strerror(error));
          halt.store(true);
          break;
        }
      }
      outcomes[i] = std::move(o);
      ++done;
      if (!spec.output)
        for (; printed < spec.count && outcomes[printed]; ++printed)
          if (!outcomes[printed]->skipped) print(outcomes[printed]->text);
      changed.notify_all();
    }
    std::lock_guard lock(mutex);
    ++exited;
    changed.notify_all();
  };

  const auto started = std::chrono::steady_clock::now();
  const auto draw = [&](std::size_t d) {
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double rate = secs > 0 ? static_cast<double>(d - already) / secs : 0;
    constexpr std::size_t kWidth = 30;
    const std::size_t filled = spec.count == 0 ? kWidth : d * kWidth / spec.count;
    err << fmt::format("\rsweep [{}{}] {}/{} rows  {:.1f} rows/s  {} left ", std::string(filled, '#'),
                       std::string(kWidth - filled, '.'), d, spec.count, rate,
                       rate > 0 ? duration_text(static_cast<double>(spec.count - d) / rate) : std::string("?"))
        << std::flush;
  };
  {
    const unsigned n = static_cast<unsigned>(std::min<std::size_t>(spec.threads, std::max<std::size_t>(todo.size(), 1)));
    std::vector<std::jthread> threads;
    for (unsigned t = 0; t < n; ++t) threads.emplace_back(worker);
    std::unique_lock lock(mutex);
    while (exited < n) {
      changed.wait_for(lock, std::chrono::milliseconds(50));
      if (g_stop_signal.load() != 0) cancel.store(true);
      if (spec.progress) draw(done);
    }
  }
  if (spec.progress) err << "\n";
  if (failure) std::rethrow_exception(failure->second);
  if (write_failure) {
    if (partial)
      throw OutputError(fmt::format("{}; {} of {} rows are kept in it: free space and run the same command with "
                                    "{} to finish",
                                    *write_failure, done, spec.count, ref(Field::Resume)));
    throw OutputError(*write_failure);
  }

  report.finished = done;
  for (std::size_t i = 0; i < spec.count; ++i) {
    if (!outcomes[i]) continue;
    if (outcomes[i]->skipped) {
      if (!report.first_skipped) {
        report.first_skipped = i;
        report.first_skip_reason = outcomes[i]->text;
      }
      ++report.skipped;
    } else if (!outcomes[i]->note.empty()) {
      report.notes.emplace_back(i, outcomes[i]->note);
    }
  }
  report.signal = g_stop_signal.load();
  report.printed = printed;
  const bool no_row = report.signal == 0 && spec.need_a_row && spec.count > 0 && report.skipped == spec.count;
  if (!spec.output) {
    if (!no_row) print("");  // the header, if no record brought it
    if (!no_row && report.signal == 0 && spec.footer) print(spec.footer(skipped_jobs(outcomes)));
    if (write_failure) throw OutputError(*write_failure);
  }
  if (report.signal != 0) return report;
  if (spec.output) {
    if (!no_row)
      write_file_atomically(*spec.output, [&](std::ostream& s) {
        s << spec.header;
        for (const auto& o : outcomes)
          if (!o->skipped) s << o->text;
        if (spec.footer) s << spec.footer(skipped_jobs(outcomes));
      });
    if (partial) partial->remove();
  }
  return report;
}

}  // namespace collsim::run
