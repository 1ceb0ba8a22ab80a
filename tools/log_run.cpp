// Settling a log's run and predicting its rows: shared by compare and calibrate.
#include "tools/log_run.hpp"

#include <limits>

#include <fmt/format.h>

#include "reports/error_bands.hpp"
#include "tools/cli.hpp"
#include "tools/options.hpp"
#include "tools/simulation.hpp"

namespace collsim::cli {
namespace {

// The nccl-tests program that measures `c` (for reports of logs that do not name theirs).
std::string_view program_of(sched::Collective c) {
  switch (c) {
    case sched::Collective::AllReduce: return "all_reduce_perf";
    case sched::Collective::ReduceScatter: return "reduce_scatter_perf";
    case sched::Collective::AllGather: return "all_gather_perf";
    case sched::Collective::Broadcast: return "broadcast_perf";
    case sched::Collective::Reduce: return "reduce_perf";
    case sched::Collective::AllToAll: return "alltoall_perf";
  }
  return "";
}

// The collective: the log's, or --collective for a log that does not say; both must agree.
sched::Collective log_collective(const validation::NcclLog& log, const std::string& flag) {
  std::optional<sched::Collective> given;
  if (!flag.empty()) {
    given = validation::collective_of_test(flag);
    if (!given)
      throw UsageError(fmt::format("--collective: found \"{}\", expected one of: {} (or the nccl-tests program, "
                                   "e.g. all_reduce_perf)",
                                   flag, sched::collective_names_list()));
  }
  if (log.test.empty()) {
    if (!given)
      throw UsageError(fmt::format("--collective: missing; {} has only result rows and does not say which collective "
                                   "it measured, expected --collective C (e.g. --collective allreduce)",
                                   log.file));
    return *given;
  }
  const auto from_log = validation::collective_of_test(log.test);
  if (!from_log)
    throw UsageError(fmt::format("{}:{}: found {}, expected a program whose collective collsim simulates: "
                                 "all_reduce_perf, reduce_scatter_perf, all_gather_perf, broadcast_perf, reduce_perf "
                                 "or alltoall_perf",
                                 log.file, log.test_line, log.test));
  if (given && *given != *from_log)
    throw UsageError(fmt::format("--collective: found {}, but {}:{} says the log measured {}; expected {} or no "
                                 "--collective",
                                 sched::collective_name(*given), log.file, log.test_line, log.test,
                                 sched::collective_name(*from_log)));
  return *from_log;
}

// The rank count: the log's, or --ranks for a log that does not say; both must agree.
std::uint32_t log_ranks(const validation::NcclLog& log, const std::string& flag) {
  std::optional<std::uint32_t> given;
  if (!flag.empty()) given = parse_count("--ranks", flag, 1, std::numeric_limits<std::uint32_t>::max());
  if (!log.ranks) {
    if (!given)
      throw UsageError(fmt::format("--ranks: missing; {} has only result rows and does not say how many ranks ran, "
                                   "expected --ranks N",
                                   log.file));
    return *given;
  }
  if (given && *given != *log.ranks)
    throw UsageError(fmt::format("--ranks: found {}, but {}:{} says the log ran on {} ranks; expected {} or no --ranks",
                                 *given, log.file, log.ranks_line, *log.ranks, *log.ranks));
  return *log.ranks;
}

// What `simulate` is asked for one row.
SimulateOptions row_request(const CompareOptions& o, const TopologyOptions& topology, sched::Collective c,
                            std::uint32_t ranks, const validation::NcclRow& row, const std::string& file) {
  SimulateOptions s;
  s.topology = topology;
  s.network = o.network;
  s.algorithm.algorithm = o.algorithm;
  s.algorithm.collective = std::string(sched::collective_name(c));
  s.size = std::to_string(row.size);
  s.ranks = std::to_string(ranks);
  // nccl-tests prints root -1 where it does not apply and redop "none" for the collectives that do
  // not reduce (src/common.cu); a row that says otherwise belongs to another collective.
  const bool rooted = c == sched::Collective::Broadcast || c == sched::Collective::Reduce;
  const bool reduces =
      c == sched::Collective::AllReduce || c == sched::Collective::Reduce || c == sched::Collective::ReduceScatter;
  const auto name = sched::collective_name(c);
  if (row.root && (*row.root >= 0) != rooted)
    throw UsageError(fmt::format("{}:{}: found root {}, expected {} for --collective {}", file, row.line, *row.root,
                                 rooted ? "a rank" : "-1", name));
  if (!row.redop.empty() && (row.redop != "none") != reduces)
    throw UsageError(fmt::format("{}:{}: found redop {}, expected {} for --collective {}", file, row.line, row.redop,
                                 reduces ? "sum, prod, min, max or avg" : "none", name));
  // Broadcast and reduce run from the printed root.
  if (rooted && row.root && *row.root >= 0) {
    if (*row.root >= ranks)
      throw UsageError(fmt::format("{}:{}: found root {}, expected a rank below {}", file, row.line, *row.root, ranks));
    s.algorithm.root = std::to_string(*row.root);
  }
  return s;
}

}  // namespace

void add_log_run_flags(CLI::App& cmd, CompareOptions& o) {
  add_value(cmd, "log", o.log,
            "nccl-tests output as printed; a log with only result rows needs --ranks and --collective");
  o.topology.add_to(cmd);
  add_value(cmd, "--topology", o.topology_flag, "The topology (file or bundled name), instead of TOPOLOGY");
  add_value(cmd, "--algorithm", o.algorithm, "Algorithm to predict with, default ring; `collsim algorithms` lists them");
  add_value(cmd, "--ranks", o.ranks, "Ranks of a log that does not say (the first N GPUs of the topology)");
  add_value(cmd, "--collective", o.collective,
            "Collective of a log that does not say: allreduce, reducescatter, allgather, broadcast, reduce, alltoall "
            "(or all_reduce_perf, ...)");
  add_value(cmd, "--network", o.network,
            "Network model: flow (default; links shared max-min fairly) or fifo (one transfer per link and "
            "direction at a time)");
  o.fidelity.add_to(cmd, false);
}

LogRun open_log_run(const CompareOptions& o) {
  if (o.log.empty()) throw UsageError("LOG: missing; expected an nccl-tests output file, e.g. collsim compare run.txt dgx-a100");
  LogRun run;
  run.topology = o.topology;
  if (!o.topology_flag.empty()) {
    if (!run.topology.spec.empty())
      throw UsageError(fmt::format("--topology: found \"{}\" and the topology \"{}\"; expected one of them",
                                   o.topology_flag, run.topology.spec));
    run.topology.spec = o.topology_flag;
  }
  try {
    run.log = validation::read_nccl_log(o.log);
  } catch (const validation::NcclLogError& e) {
    throw UsageError(e.what());
  }
  check_network_name(o.network);
  run.collective = log_collective(run.log, o.collective);
  run.ranks = log_ranks(run.log, o.ranks);
  const topo::Topology t = run.topology.load();
  if (run.ranks > t.gpus().size())
    throw UsageError(fmt::format("{}: ran on {} ranks, but topology {} has only {} GPUs; expected a topology with at "
                                 "least {} GPUs",
                                 run.log.file, run.ranks, t.name(), t.gpus().size(), run.ranks));
  return run;
}

std::string test_program(const LogRun& run) {
  return run.log.test.empty() ? std::string(program_of(run.collective)) : run.log.test;
}

sim::Summary predict_row(const LogRun& run, const CompareOptions& o, const FidelityOptions& fidelity,
                         const validation::NcclRow& row) {
  SimulateOptions s = row_request(o, run.topology, run.collective, run.ranks, row, run.log.file);
  s.fidelity = fidelity;
  return simulate_summary(s);
}

reports::ComparedRow measured_row(const validation::NcclRow& row) {
  reports::ComparedRow r;
  r.line = row.line;
  r.size = row.size;
  r.measured_us = row.time_us;
  r.measured_algbw_GBps = row.algbw_GBps;
  r.measured_busbw_GBps = row.busbw_GBps;
  return r;
}

reports::ComparedRow compared_row(const validation::NcclRow& row, const sim::Summary& s) {
  reports::ComparedRow r = measured_row(row);
  r.predicted = s.time;
  r.predicted_algbw_GBps = s.algbw_GBps;
  r.predicted_busbw_GBps = s.busbw_GBps;
  r.error_pct = reports::error_pct(to_us(s.time), row.time_us);
  return r;
}

}  // namespace collsim::cli
