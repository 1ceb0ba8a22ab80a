// collsim sweep: the cross product of topologies (or GPU counts) × collectives × algorithms ×
// sizes, one simulated collective per row, on every core; CSV or JSON lines.
#include <unistd.h>

#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "reports/sweep_row.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "tools/simulation.hpp"
#include "tools/sweep_run.hpp"
#include "tools/sweep_shard.hpp"
#include "tools/sweep_spec.hpp"
#include "topologies/export.hpp"
#include "topologies/generate.hpp"
#include "validation/dtype.hpp"

namespace collsim::cli {
namespace {

struct SweepTopology {
  topo::Topology topology;
  std::string fabric;  // generator fabric, "" for a file
};

struct Job {
  std::size_t topology;
  std::uint32_t ranks;
  const algo::AlgorithmInfo* algorithm;
  Bytes size;
};

std::vector<SweepTopology> load_topologies(const SweepOptions& o) {
  std::vector<SweepTopology> out;
  const bool generated = !o.generator.empty();
  if (!o.topologies.empty() && generated)
    throw UsageError("--gpus/--fabric: given with topology files; expected one or the other");
  if (generated) {
    if (o.generator.gpus.empty()) throw UsageError("--gpus: missing; a generated family needs --gpus LIST and --fabric F");
    for (std::uint32_t n : parse_count_list("--gpus", o.generator.gpus, 1, 1u << 20)) {
      TopologyOptions t = o.generator;
      t.gpus = std::to_string(n);
      out.push_back({t.load(), t.fabric});
    }
    return out;
  }
  for (const auto& spec : o.topologies.empty() ? std::vector<std::string>{std::string(kDefaultTopology)} : o.topologies) {
    TopologyOptions t;
    t.spec = spec;
    out.push_back({t.load(), ""});
  }
  return out;
}

std::vector<Bytes> sweep_sizes(const SweepOptions& o) {
  std::vector<Bytes> sizes;
  if (!o.min_bytes.empty() || !o.max_bytes.empty()) {
    if (o.min_bytes.empty()) throw UsageError("-b/--minbytes: missing; -e needs -b (e.g. -b 8 -e 1G -f 2)");
    sizes = size_range(o.min_bytes, o.max_bytes, o.step_factor, o.step_bytes, kMaxSweepRows);
  } else if (!o.step_factor.empty() || !o.step_bytes.empty()) {
    throw UsageError("-f/-i: given without -b/--minbytes; expected -b MIN -e MAX with them");
  }
  if (!o.sizes.empty())
    for (const auto& s : split_list("--sizes", o.sizes)) sizes.push_back(parse_size_flag("--sizes", s));
  if (sizes.empty()) throw UsageError("-b/--sizes: missing; give sizes as -b 8 -e 1G [-f 2 | -i STEP] or --sizes 1M,1G");
  return sizes;
}

// The algorithms named by --algorithms (names or aliases) for `collective` (all that support it for
// "all"); a name that exists only for other collectives is left out, an unknown one is an error.
std::vector<const algo::AlgorithmInfo*> algorithms_for(const algo::AlgorithmRegistry& registry, sched::Collective c,
                                                       const std::vector<std::string>& names) {
  std::vector<const algo::AlgorithmInfo*> out;
  for (const auto& name : names) {
    if (name != "all" && registry.named(name).empty()) {
      try {
        (void)registry.find(c, name);  // throws, listing the algorithms
      } catch (const algo::AlgorithmError& e) {
        throw UsageError(fmt::format("--algorithms: {}", e.what()));
      }
    }
    for (const auto& info : registry.all())
      if (info.collective == c && (name == "all" || info.answers_to(name)) &&
          std::find(out.begin(), out.end(), &info) == out.end())
        out.push_back(&info);
  }
  return out;
}

// FNV-1a (64 bit) of `text` as 16 hex digits: stable across builds, unlike std::hash.
std::string fnv1a_hex(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325u;
  for (unsigned char ch : text) hash = (hash ^ ch) * 0x100000001b3u;
  return fmt::format("{:016x}", hash);
}

}  // namespace

CLI::App* add_sweep(CLI::App& app, SweepOptions& o) {
  auto* cmd = app.add_subcommand(
      "sweep", "Simulate every combination of topologies (or GPU counts), collectives, algorithms and sizes; one CSV "
               "row (or JSON line) each");
  cmd->add_option("topologies", o.topologies, "Topology files or bundled names (default dgx-a100)");
  add_value(*cmd, "--gpus", o.generator.gpus,
            "Generate one fabric per GPU count: a list such as 2,4,8..1024 (A..B = the powers of two from A to B); "
            "needs --fabric");
  add_value(*cmd, "--fabric", o.generator.fabric, "Generated fabric: ring | switch | fully-connected");
  add_value(*cmd, "--link-bandwidth", o.generator.link_bandwidth,
            "Generated links' bandwidth per direction, default 25GB/s (GB/s = 1e9 bytes/s, Gb/s = 1e9 bits/s)");
  add_value(*cmd, "--link-latency", o.generator.link_latency, "Generated links' latency, default 1us");
  add_value(*cmd, "--nodes", o.generator.nodes,
            "Generate K hosts of N/K GPUs each (needs --fabric switch; K must divide every --gpus N)");
  add_value(*cmd, "--net-bandwidth", o.generator.net_bandwidth, "With --nodes: each host's network link, default 25GB/s");
  add_value(*cmd, "--net-latency", o.generator.net_latency, "With --nodes: its latency, default 2us");
  add_value(*cmd, "--ranks", o.ranks, "Rank counts to run on each topology (its first N GPUs), e.g. 2..8 (default: all)");
  add_size_range(*cmd, o.min_bytes, o.max_bytes, o.step_factor);
  add_value(*cmd, "-i,--stepbytes", o.step_bytes, "Or add this many bytes per step");
  add_value(*cmd, "--sizes", o.sizes, "Sizes as a list, e.g. 1M,64M,1G (after those of -b/-e)");
  add_value(*cmd, "--collectives", o.collectives, "Collectives, comma-separated (default allreduce)");
  add_value(*cmd, "--algorithms", o.algorithms,
            "Algorithms, comma-separated, or all (every algorithm of each collective); default ring");
  add_value(*cmd, "--root", o.algorithm.root, "Root rank of broadcast and reduce, default 0");
  add_value(*cmd, "--chunk-size", o.algorithm.chunk_size, "Pipeline chunk of tree algorithms, default 512K");
  add_value(*cmd, "--ps-shards", o.algorithm.ps_shards, "ps: spread the buffer over K servers, default 1");
  add_value(*cmd, "--dtype", o.dtype, "Element type for the count and type columns, default float32");
  add_value(*cmd, "--network", o.network, "Network model: flow (default) or fifo");
  add_value(*cmd, "--params", o.params,
            "Model parameters from this JSON file (\"format\": \"collsim-params-1\", e.g. from collsim calibrate), "
            "over each topology's own");
  add_value(*cmd, "--format", o.format, "csv (default) or json (JSON lines: one object per row)");
  add_value(*cmd, "-o,--output", o.output,
            "Write here (atomically, when every row is done) instead of standard output (- for standard output); rows "
            "done so far are kept in .NAME.partial beside it");
  add_value(*cmd, "-j,--jobs", o.jobs, "Threads, default the number of cores; the output is the same for any -j");
  add_value(*cmd, "--shard", o.shard,
            "I/K: run only rows I, I+K, I+2K, ... (0 <= I < K), for one task of a job array; join with collsim merge");
  cmd->add_flag("--resume", o.resume, "Continue an interrupted sweep to -o FILE from its partial file");
  return cmd;
}

int run_sweep(const SweepOptions& o, std::ostream& out, std::ostream& err) {
  if (o.format != "csv" && o.format != "json")
    throw UsageError(fmt::format("--format: found \"{}\", expected csv or json", o.format));
  const auto dtype = validation::parse_dtype(o.dtype);
  if (!dtype)
    throw UsageError(fmt::format("--dtype: found \"{}\", expected one of: {}", o.dtype, validation::dtype_names_list()));
  check_network_name(o.network);
  const unsigned threads =
      o.jobs.empty() ? std::max(1u, std::thread::hardware_concurrency()) : parse_count("-j/--jobs", o.jobs, 1, 1024);
  std::uint32_t shard = 0, shards = 1;
  if (!o.shard.empty()) {
    const auto slash = o.shard.find('/');
    if (slash == std::string::npos) throw UsageError(fmt::format("--shard: found \"{}\", expected I/K such as 0/4", o.shard));
    shards = parse_count("--shard", o.shard.substr(slash + 1), 1, 1u << 20);
    shard = parse_count("--shard", o.shard.substr(0, slash), 0, shards - 1);
  }
  const auto collectives = split_list("--collectives", o.collectives);
  const auto algorithm_names = split_list("--algorithms", o.algorithms);
  const auto sizes = sweep_sizes(o);
  const auto registry = algo::builtin_registry();
  std::vector<sched::Collective> kinds;
  for (const auto& c : collectives) {
    AlgorithmOptions a;
    a.collective = c;
    kinds.push_back(a.collective_kind());
  }
  const auto topologies = load_topologies(o);
  // Read once up front: a bad file fails at once, every row sees the same values, and they key --resume.
  FidelityOptions fidelity;
  std::string params_text;
  if (!o.params.empty()) {
    fidelity.fitted = topo::load_model_params_file(o.params);
    fidelity.fitted_source = fmt::format("--params {}", o.params);
    params_text = topo::write_model_params_json(*fidelity.fitted);
  }
  std::vector<std::uint32_t> rank_counts;
  if (!o.ranks.empty()) rank_counts = parse_count_list("--ranks", o.ranks, 1, 1u << 20);

  // The rows in their fixed order: topology, ranks, collective, algorithm, size (innermost).
  std::vector<Job> jobs;
  std::size_t too_few_gpus = 0;
  // What identifies the sweep: the partial file's (--resume) adds the shard to it, the shard
  // file's (merge) does not. Contents, not names: a topology file edited, or a generated fabric
  // with other link flags, keeps its name but must not resume or merge with the old rows.
  const std::string options_text = fmt::format("{}|{}|{}|{}|{}|{}|{}", o.format, o.network, validation::dtype_name(*dtype),
                                               o.algorithm.root, o.algorithm.chunk_size, o.algorithm.ps_shards,
                                               reports::sweep_csv_header());
  std::string fingerprint_text;  // after the options
  for (const auto& t : topologies) fingerprint_text += "|" + topo::normalized_json(t.topology);
  fingerprint_text += "|" + params_text;
  for (std::size_t t = 0; t < topologies.size(); ++t) {
    const std::uint32_t gpus = static_cast<std::uint32_t>(topologies[t].topology.gpus().size());
    for (std::uint32_t n : rank_counts.empty() ? std::vector<std::uint32_t>{gpus} : rank_counts) {
      if (n > gpus) {
        ++too_few_gpus;
        continue;
      }
      for (sched::Collective c : kinds)
        for (const auto* a : algorithms_for(registry, c, algorithm_names))
          for (Bytes s : sizes) {
            if (jobs.size() >= kMaxSweepRows)
              throw UsageError(fmt::format("sweep: more than {} rows; expected fewer", kMaxSweepRows));
            jobs.push_back({t, n, a, s});
            fingerprint_text += fmt::format("|{}:{}:{}:{}:{}", topologies[t].topology.name(), n, a->name,
                                            sched::collective_name(c), s);
          }
    }
  }
  // A name that serves none of the collectives would silently give no rows.
  for (const auto& name : algorithm_names) {
    bool used = name == "all";
    for (sched::Collective c : kinds)
      for (const auto* a : algorithms_for(registry, c, {name})) used |= a != nullptr;
    if (!used)
      throw UsageError(fmt::format("--algorithms: {} has none of the collectives {}; `collsim algorithms` lists what "
                                   "each one has",
                                   name, o.collectives));
  }
  if (jobs.empty() && too_few_gpus > 0) {
    // Every pair left out: a header alone would look like a sweep that ran.
    std::size_t most = 0;
    for (const auto& t : topologies) most = std::max(most, t.topology.gpus().size());
    throw UsageError(fmt::format("--ranks: found {}, but no topology has that many GPUs; expected at most {}", o.ranks, most));
  }
  if (too_few_gpus > 0)
    err << fmt::format("collsim: sweep: left out {} topology/--ranks pair(s) with more ranks than GPUs\n", too_few_gpus);
  // Options are checked once up front, so a typo fails at once rather than skipping every row.
  {
    AlgorithmOptions check = o.algorithm;
    (void)check.request(1u << 20, 0);
  }

  std::vector<std::size_t> mine;  // this shard's rows
  for (std::size_t i = shard; i < jobs.size(); i += shards) mine.push_back(i);
  const bool json = o.format == "json";
  const std::string dtype_name(validation::dtype_name(*dtype));
  const auto run_one = [&](std::size_t k) -> JobOutcome {
    const Job& j = jobs[mine[k]];
    const SweepTopology& t = topologies[j.topology];
    AlgorithmOptions flags = o.algorithm;
    flags.collective = std::string(sched::collective_name(j.algorithm->collective));
    flags.algorithm = std::string(j.algorithm->name);
    const reports::SweepRowContext context{mine[k], t.fabric, dtype_name, validation::dtype_size(*dtype)};
    try {
      Plan plan;
      try {
        plan = build_plan(*j.algorithm, t.topology, j.ranks, flags, j.size, validation::dtype_size(*dtype), fidelity,
                          Ops::OnDemand);
      } catch (const algo::AlgorithmError& e) {
        return {true, e.what(), {}};
      } catch (const UsageError& e) {  // e.g. --root beyond this row's ranks
        return {true, e.what(), {}};
      }
      const Simulated run = simulate_plan(plan, t.topology, o.network);
      return {false, json ? reports::sweep_json_row(context, run.summary, t.topology)
                          : reports::sweep_csv_row(context, run.summary, t.topology),
              {}};
    } catch (const ClockOverflowError& e) {
      // A valid row whose time does not fit the clock: reported in its row and on stderr, and the
      // other rows run.
      const auto collective = sched::collective_name(j.algorithm->collective);
      const reports::SweepRowIdentity id{t.topology.name(), o.network, j.ranks, collective, j.algorithm->name, j.size};
      return {false,
              json ? reports::sweep_json_error_row(context, id, e.what())
                   : reports::sweep_csv_error_row(context, id, e.what()),
              fmt::format("sweep row {} ({}, {} ranks, {} {}, {} bytes): not simulated: {}", mine[k], t.topology.name(),
                          j.ranks, collective, j.algorithm->name, j.size, e.what())};
    }
  };

  SweepRunSpec spec;
  spec.count = mine.size();
  spec.header = json ? std::string() : reports::sweep_csv_header();
  spec.fingerprint = fnv1a_hex(fmt::format("{}|{}/{}{}", options_text, shard, shards, fingerprint_text));
  if (!o.shard.empty()) {
    // Framed by the lines that tell merge which sweep and which rows it holds (sweep_shard.hpp).
    const ShardHead head{shard, shards, fnv1a_hex(options_text + fingerprint_text), jobs.size(), o.format};
    spec.header = shard_head_line(head) + spec.header;
    spec.footer = [head, &mine](const std::vector<std::size_t>& skipped) {
      std::vector<std::uint64_t> rows;
      for (std::size_t k : skipped) rows.push_back(mine[k]);
      return shard_end_line(head, rows);
    };
  }
  if (!o.output.empty() && o.output != "-") spec.output = o.output;  // "-": standard output
  spec.resume = o.resume;
  spec.threads = threads;
  spec.progress = &err == &std::cerr && ::isatty(STDERR_FILENO) == 1;
  // A whole sweep with no row to show is an error, not a file with a header only; a shard with none
  // is not (the other shards may hold rows, and merge needs its file).
  spec.need_a_row = shards == 1;
  const SweepRunReport report = run_jobs(spec, run_one, out, err);
  if (report.skipped > 0) {
    const Job& j = jobs[mine[*report.first_skipped]];
    const std::string first = fmt::format("first {} on {} ranks of {}: {}", j.algorithm->name, j.ranks,
                                          topologies[j.topology].topology.name(), report.first_skip_reason);
    if (report.signal == 0 && spec.need_a_row && report.skipped == spec.count)
      throw UsageError(fmt::format("sweep: every row ({}) is one an algorithm cannot run, {}", report.skipped, first));
    err << fmt::format("collsim: sweep: skipped {} row(s) that an algorithm cannot run, {}\n", report.skipped, first);
  }
  // Rows that could not be simulated: the first few named, then how many more.
  constexpr std::size_t kNamedNotes = 10;
  for (std::size_t n = 0; n < std::min(report.notes.size(), kNamedNotes); ++n)
    err << "collsim: warning: " << report.notes[n].second << "; its result columns are empty and its error column says why\n";
  if (report.notes.size() > kNamedNotes)
    err << fmt::format("collsim: warning: sweep: {} more row(s) not simulated; their error column says why\n",
                       report.notes.size() - kNamedNotes);
  if (report.signal > 0) {
    if (!spec.output)
      err << fmt::format("collsim: sweep stopped by signal {}; the first {} of {} rows are on standard output, and a "
                         "sweep to standard output cannot be resumed: run it again (with -o FILE it could be resumed)\n",
                         report.signal, report.printed, spec.count);
    else if (report.partial.empty())
      err << fmt::format("collsim: sweep stopped by signal {} after {} of {} rows; -o {} is not a regular file, so "
                         "nothing is kept to resume from: run it again\n",
                         report.signal, report.finished, spec.count, spec.output->string());
    else
      err << fmt::format("collsim: sweep stopped by signal {}; {} of {} rows are kept in {}; run the same command with "
                         "--resume to finish it\n",
                         report.signal, report.finished, spec.count, report.partial.string());
    return 128 + report.signal;
  }
  return kExitOk;
}

}  // namespace collsim::cli
