#include "tools/log_options.hpp"

#include <limits>

#include <fmt/format.h>

#include "run/parse.hpp"
#include "tools/cli.hpp"
#include "tools/option_table.hpp"
#include "tools/options.hpp"

namespace collsim::cli {

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
  add_shared(cmd, run::Field::Network, o.network);
  o.fidelity.add_to(cmd, false);
}

TopologyOptions log_topology(const CompareOptions& o) {
  TopologyOptions t = o.topology;
  if (!o.topology_flag.empty()) t.spec = o.topology_flag;
  return t;
}

run::LogRequest log_request(const CompareOptions& o) {
  if (!o.topology_flag.empty() && !o.topology.spec.empty())
    throw UsageError(fmt::format("--topology: found \"{}\" and the topology \"{}\"; expected one of them",
                                 o.topology_flag, o.topology.spec));
  run::LogRequest r;
  r.log = o.log;
  r.topology = log_topology(o).spec_of();
  r.algorithm = o.algorithm;
  if (!o.ranks.empty()) r.ranks = parse_count("--ranks", o.ranks, 1, std::numeric_limits<std::uint32_t>::max());
  if (!o.collective.empty()) r.collective = run::parse_log_collective(o.collective);
  r.network = o.network;
  r.model = o.fidelity.model_options();
  return r;
}

}  // namespace collsim::cli
