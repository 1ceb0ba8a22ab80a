#include "tools/log_options.hpp"

#include <fmt/format.h>

#include "run/text_request.hpp"
#include "tools/cli.hpp"
#include "tools/option_table.hpp"
#include "tools/options.hpp"

namespace collsim::cli {

void add_log_run_flags(CLI::App& cmd, CompareOptions& o) {
  add_value(cmd, "log", o.log,
            "nccl-tests output as printed (or its rows as a CSV table); a log with only result rows needs --ranks and --collective");
  o.topology.add_to(cmd);
  add_value(cmd, "--algorithm", o.algorithm, "Algorithm to predict with, default nccl: NCCL's choice per size, as a log of NCCL's default ran; give the one a forced log ran (NCCL_ALGO=Ring: ring); `collsim algorithms` lists them");
  add_value(cmd, "--ranks", o.ranks, "Ranks of a log that does not say (the first N GPUs of the topology)");
  add_value(cmd, "--collective", o.collective,
            "Collective of a log that does not say: allreduce, reducescatter, allgather, broadcast, reduce, alltoall "
            "(or all_reduce_perf, ...)");
  add_shared(cmd, run::Field::Network, o.network);
  o.fidelity.add_to(cmd, false);
}

run::LogRequest log_request(const CompareOptions& o) {
  return run::log_request(
      {o.log, o.topology.text(), o.algorithm, o.ranks, o.collective, o.network, o.fidelity.text(), o.jobs});
}

}  // namespace collsim::cli
