// collsim bench: the performance suite of issue 7 without Google Benchmark. Each case runs in a
// forked child per repetition (bench/bench_measure.hpp); the table or JSON reports medians and
// minimums, so two builds can be compared case by case.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <regex>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/bench_cases.hpp"
#include "bench/bench_measure.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "run/lists.hpp"

namespace collsim::cli {
namespace {

// The median (the mean of the middle two for an even count) and the minimum; `v` is not empty.
struct Spread {
  double median = 0;
  double min = 0;
};
Spread spread(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return {n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v.front()};
}

// What the suite reports for one case.
struct CaseReport {
  std::string name;
  std::string status;   // ok, skipped, not available, failed
  std::string message;  // why it is not ok
  std::size_t runs = 0;
  Spread wall;
  Spread cpu;
  std::uint64_t peak_rss_bytes = 0;  // the largest over the runs
  bench::Work work;
};

// The machine, for the report: logical CPUs, the CPU model and the memory, as Linux reports them.
struct Machine {
  unsigned cpus = 0;
  std::string cpu_model = "unknown";
  std::uint64_t memory_bytes = 0;
};
Machine describe_machine() {
  Machine m;
  m.cpus = std::thread::hardware_concurrency();
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.starts_with("model name")) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) m.cpu_model = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  while (meminfo >> key >> kib)
    if (key == "MemTotal:") {
      m.memory_bytes = kib * 1024;
      break;
    } else {
      meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
  return m;
}

// Without --max-memory a run may use three quarters of the machine's memory: a case that needs
// more (halving-doubling at N = 4096 materialises ~10^10 dependencies) fails with a message
// instead of waking the kernel's OOM killer, which might pick another process. AddressSanitizer
// reserves terabytes of address space at start, which any RLIMIT_AS would break, so sanitizer
// builds have no default cap.
std::uint64_t default_memory_cap(const Machine& machine) {
#if defined(__SANITIZE_ADDRESS__)
  (void)machine;
  return 0;
#else
  return machine.memory_bytes / 4 * 3;
#endif
}

// The status word of a run that did not succeed.
std::string_view status_name(bench::RunStatus s) {
  switch (s) {
    case bench::RunStatus::Ok: return "ok";
    case bench::RunStatus::NotAvailable: return "not available";
    case bench::RunStatus::TimedOut: return "timeout";
    case bench::RunStatus::Failed: break;
  }
  return "failed";
}

CaseReport run_case(const bench::Case& c, const BenchOptions& o, std::uint32_t max_ranks, std::uint32_t repeat,
                    const bench::RunLimits& limits) {
  CaseReport r{c.name, "ok", "", 0, {}, {}, 0, {}};
  if (c.heavy && o.quick) {
    r.status = "skipped";
    r.message = "left out by --quick";
    return r;
  }
  if (c.ranks > max_ranks) {
    r.status = "skipped";
    r.message = fmt::format("N = {} is above --max-ranks {}", c.ranks, max_ranks);
    return r;
  }
  std::vector<double> wall, cpu;
  for (std::uint32_t k = 0; k < repeat; ++k) {
    const bench::Measurement m = bench::measure_in_child(c.run, limits);
    if (m.status != bench::RunStatus::Ok) {
      r.status = status_name(m.status);
      r.message = m.message;
      r.peak_rss_bytes = std::max(r.peak_rss_bytes, m.peak_rss_bytes);
      return r;
    }
    wall.push_back(m.wall_s);
    cpu.push_back(m.cpu_s);
    r.peak_rss_bytes = std::max(r.peak_rss_bytes, m.peak_rss_bytes);
    r.work = m.work;  // deterministic: every run simulates the same events
  }
  r.runs = wall.size();
  r.wall = spread(wall);
  r.cpu = spread(cpu);
  return r;
}

// events / seconds, or null when there is nothing to divide.
nlohmann::ordered_json per_second(std::uint64_t events, double seconds) {
  if (events == 0 || seconds <= 0) return nullptr;
  return static_cast<double>(events) / seconds;
}

std::string render_json(const Machine& machine, const BenchOptions& o, std::uint32_t max_ranks,
                        std::uint32_t repeat, const bench::RunLimits& limits, const std::vector<CaseReport>& reports) {
  nlohmann::ordered_json doc;
  doc["collsim_version"] = kVersion;
  doc["machine"] = {{"cpus", machine.cpus}, {"cpu_model", machine.cpu_model}, {"memory_bytes", machine.memory_bytes}};
  doc["repeat"] = repeat;
  doc["quick"] = o.quick;
  doc["max_ranks"] = max_ranks;
  doc["max_memory_bytes"] =
      limits.memory_bytes > 0 ? nlohmann::ordered_json(limits.memory_bytes) : nlohmann::ordered_json(nullptr);
  doc["timeout_s"] = limits.time_s > 0 ? nlohmann::ordered_json(limits.time_s) : nlohmann::ordered_json(nullptr);
  doc["cases"] = nlohmann::ordered_json::array();
  for (const auto& r : reports) {
    nlohmann::ordered_json j;
    j["name"] = r.name;
    j["status"] = r.status;
    j["message"] = r.message.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.message);
    j["runs"] = r.runs;
    const bool ok = r.status == "ok";
    const auto number = [ok](double v) { return ok ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); };
    j["wall_s_median"] = number(r.wall.median);
    j["wall_s_min"] = number(r.wall.min);
    j["cpu_s_median"] = number(r.cpu.median);
    j["cpu_s_min"] = number(r.cpu.min);
    j["events"] = ok && r.work.events > 0 ? nlohmann::ordered_json(r.work.events) : nlohmann::ordered_json(nullptr);
    j["events_per_s"] = ok ? per_second(r.work.events, r.wall.median) : nullptr;
    j["events_per_cpu_s"] = ok ? per_second(r.work.events, r.cpu.median) : nullptr;
    j["ops"] = ok && r.work.ops > 0 ? nlohmann::ordered_json(r.work.ops) : nlohmann::ordered_json(nullptr);
    j["simulated_us"] = ok && r.work.simulated ? nlohmann::ordered_json(to_us(*r.work.simulated))
                                               : nlohmann::ordered_json(nullptr);
    j["peak_rss_bytes"] = r.peak_rss_bytes > 0 ? nlohmann::ordered_json(r.peak_rss_bytes) : nlohmann::ordered_json(nullptr);
    doc["cases"].push_back(std::move(j));
  }
  return doc.dump(2) + "\n";
}

std::string render_table(const Machine& machine, std::uint32_t repeat, const std::vector<CaseReport>& reports) {
  std::string s = fmt::format("collsim bench: {} CPUs ({}), {:.1f} GiB memory; {} run(s) per case, median (min)\n\n",
                              machine.cpus, machine.cpu_model, static_cast<double>(machine.memory_bytes) / (1 << 30),
                              repeat);
  // The case column fits the longest name (at least 38 wide), so the columns stay aligned.
  std::size_t width = 38;
  for (const auto& r : reports) width = std::max(width, r.name.size());
  s += fmt::format("{:<{}} {:<8} {:>19} {:>19} {:>11} {:>10} {:>9}  {}\n", "case", width, "status", "wall s", "cpu s",
                   "events", "Mev/cpu-s", "peak MiB", "simulated");
  for (const auto& r : reports) {
    std::string line;
    if (r.status == "ok") {
      const auto mev = r.work.events > 0 && r.cpu.median > 0
                           ? fmt::format("{:.2f}", static_cast<double>(r.work.events) / r.cpu.median / 1e6)
                           : std::string("-");
      line = fmt::format("{:<{}} {:<8} {:>19} {:>19} {:>11} {:>10} {:>9.1f}  {}", r.name, width, r.status,
                         fmt::format("{:.3f} ({:.3f})", r.wall.median, r.wall.min),
                         fmt::format("{:.3f} ({:.3f})", r.cpu.median, r.cpu.min),
                         r.work.events > 0 ? fmt::to_string(r.work.events) : std::string("-"), mev,
                         static_cast<double>(r.peak_rss_bytes) / (1 << 20),
                         r.work.simulated ? format_time(*r.work.simulated) : std::string("-"));
    } else {
      line = fmt::format("{:<{}} {:<8} {}", r.name, width, r.status == "not available" ? "n/a" : r.status, r.message);
    }
    s += line + "\n";
  }
  return s;
}

}  // namespace

CLI::App* add_bench(CLI::App& app, BenchOptions& o) {
  auto* cmd = app.add_subcommand(
      "bench",
      "Measure the simulator: events/s of the bare event queue, ring/tree/halving-doubling all-reduce at "
      "N = 8 .. 16384 on switch and ring fabrics, a 1,000-point sweep; wall and CPU time, events/s, peak memory");
  add_value(*cmd, "--cases", o.cases,
            "Run only the cases whose name matches this regular expression (ECMAScript), e.g. 'queue' or "
            "'allreduce/ring/switch'");
  cmd->add_flag("--quick", o.quick, "A short run: fewer queue events, N <= 64 unless --max-ranks, no sweep");
  add_value(*cmd, "--max-ranks", o.max_ranks,
            "Skip collective cases above this N (default 4096; 64 with --quick)");
  add_value(*cmd, "--ranks", o.ranks,
            "N of the collective cases, e.g. 1024,2048,4096,8192,16384 or 1024..16384 (powers of two); default "
            "8,64,512,4096,16384. Without --max-ranks every N listed runs");
  add_value(*cmd, "--repeat", o.repeat, "Runs per case, each in a fresh process; report median and min (default 1)");
  add_value(*cmd, "--size", o.size, "S of the all-reduce cases, default 1G (powers of 1024; GB = 1e9 bytes)");
  add_value(*cmd, "--max-memory", o.max_memory,
            "Cap each run's address space (e.g. 8G; default 3/4 of the machine's memory; 0: no cap); a case above "
            "it fails with a message instead of meeting the OOM killer");
  add_value(*cmd, "--timeout", o.timeout,
            "Stop a run after this many seconds of wall-clock time and report the case as timeout (default 300; 0: "
            "no limit)");
  add_value(*cmd, "--format", o.format, "table (default) or json");
  return cmd;
}

int run_bench(const BenchOptions& o, std::ostream& out, std::ostream& err) {
  if (o.format != "table" && o.format != "json")
    throw UsageError(fmt::format("--format: found \"{}\", expected table or json", o.format));
  std::regex pattern;
  try {
    pattern = std::regex(o.cases.empty() ? std::string(".") : o.cases, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw UsageError(fmt::format("--cases: \"{}\" is not a regular expression ({})", o.cases, e.what()));
  }
  bench::SuiteOptions suite_options;
  if (!o.ranks.empty()) suite_options.ranks = run::parse_count_list(run::Field::Ranks, o.ranks, 2, 1U << 20);
  // A list asked for explicitly runs whole unless --max-ranks says otherwise.
  const std::uint32_t default_max = !o.ranks.empty() ? 1U << 20 : o.quick ? 64U : 4096U;
  const std::uint32_t max_ranks =
      o.max_ranks.empty() ? default_max : parse_count("--max-ranks", o.max_ranks, 1, 1U << 20);
  const std::uint32_t repeat = o.repeat.empty() ? 1U : parse_count("--repeat", o.repeat, 1, 1000);
  suite_options.quick = o.quick;
  if (!o.size.empty()) suite_options.size = parse_size_flag("--size", o.size);
  const Machine machine = describe_machine();
  bench::RunLimits limits;
  limits.memory_bytes =
      o.max_memory.empty() ? default_memory_cap(machine) : parse_size_flag("--max-memory", o.max_memory);
  limits.time_s = o.timeout.empty() ? 300U : parse_count("--timeout", o.timeout, 0, 86400);

  std::vector<bench::Case> cases = bench::suite(suite_options);
  std::erase_if(cases, [&](const bench::Case& c) { return !std::regex_search(c.name, pattern); });
  if (cases.empty()) throw UsageError(fmt::format("--cases: \"{}\" matches no case; expected e.g. queue, allreduce/ring", o.cases));

  const bool progress = ::isatty(STDERR_FILENO) != 0;
  std::vector<CaseReport> reports;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (progress) err << fmt::format("bench: [{}/{}] {}\n", i + 1, cases.size(), cases[i].name) << std::flush;
    reports.push_back(run_case(cases[i], o, max_ranks, repeat, limits));
  }
  out << (o.format == "json" ? render_json(machine, o, max_ranks, repeat, limits, reports)
                             : render_table(machine, repeat, reports));
  return kExitOk;
}

}  // namespace collsim::cli
