// A sweep as text, the way a user gives it (the CLI's flags, the Python module's keywords), read
// into a SweepRequest; and what a sweep tells its user beside its rows.
#pragma once

#include <string>
#include <vector>

#include "run/sweep.hpp"
#include "run/text_request.hpp"

namespace collsim::run {

/// What to sweep. An empty string means "not given".
struct SweepText {
  std::vector<std::string> topologies;  ///< files or bundled names
  std::vector<SweepTopology> built;     ///< topologies built already (Python's), after `topologies`
  TopologyText generator;               ///< a generated family: gpus is a count list ("2,4,8..1024")
  std::string ranks;                    ///< a count list
  std::string minbytes, maxbytes, stepfactor, stepbytes;  ///< nccl-tests' -b, -e, -f, -i
  std::string sizes;                    ///< comma-separated, after those of -b/-e
  std::string collectives = "allreduce";
  std::string algorithms = "ring";      ///< comma-separated, or all
  AlgorithmText options;                ///< root, chunk_size, ps_shards (ps_node is not used)
  std::string dtype = "float32";
  std::string network = "flow";
  std::string params;
  std::string nccl_algo;                ///< NCCL_ALGO-style list restricting the algorithm nccl rows
  std::string gpus_per_thread;          ///< GPUs one host thread drives (nccl-tests -g G)
  std::string jobs;                     ///< threads; default: the number of cores
  std::string shard;                    ///< "I/K"; default: the whole sweep
  RowFormat format = RowFormat::Csv;
};

/// A sweep request and the threads to run it on.
struct SweepSetup {
  SweepRequest request;
  unsigned threads = 1;
};

/// The request of `text`, its topologies loaded. Throws RequestError naming the field, checked in the
/// order dtype, network, jobs, shard, collectives, algorithms, sizes, topologies, ranks, options.
[[nodiscard]] SweepSetup sweep_setup(SweepText text);

/// "sweep: left out N topology/--ranks pair(s) with more ranks than GPUs", or "" when none was.
[[nodiscard]] std::string left_out_notice(const SweepPlan& plan);

/// The lines a finished run of `plan` tells its user (a front end prefixes them: "collsim: "), field
/// references spelled by `spell`: the skipped rows ("sweep: skipped ..."), and the rows that could
/// not be simulated ("warning: ...", the first ten by name). Throws RequestError (Field::Algorithms)
/// when the run completed and every row was one an algorithm cannot run (spec.need_a_row).
[[nodiscard]] std::vector<std::string> finished_notices(const SweepPlan& plan, const SweepRunSpec& spec,
                                                        const SweepRunReport& report, FieldSpelling spell);

}  // namespace collsim::run
