// A sweep planned from typed lists: the cross product of topologies × rank counts × collectives ×
// algorithms × sizes, in that fixed order (size innermost), one simulated collective per row, and
// the row that each job writes (reports/sweep_row.hpp). `collsim sweep` and `collsim.sweep()` in
// Python run it with the job runner (run/job_runner.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "run/job_runner.hpp"
#include "run/request.hpp"
#include "run/sweep_shard.hpp"
#include "validation/dtype.hpp"

namespace collsim::run {

/// A topology of a sweep, with the generator fabric that made it ("" for a file or bundled one).
struct SweepTopology {
  topo::Topology topology;
  std::string fabric;
};

/// The rows' record format.
enum class RowFormat : std::uint8_t { Csv, Json };

/// What to sweep.
struct SweepRequest {
  std::vector<SweepTopology> topologies;   ///< at least one
  std::vector<std::uint32_t> ranks;        ///< rank counts on each topology (its first N GPUs); empty: all
  std::vector<sched::Collective> collectives{sched::Collective::AllReduce};
  std::vector<std::string> algorithms{"ring"};  ///< names, or "all" (every algorithm of each collective)
  std::vector<Bytes> sizes;                ///< at least one
  AlgorithmOptions options;                ///< root, chunk_size, ps_shards: a row they do not fit is skipped
  validation::DType dtype = validation::DType::Float32;
  std::string network = "flow";
  std::string params;                      ///< parameter file over each topology's own ("" none), read once
  /// The NCCL algorithms the rows of algorithm nccl may pick (NCCL_ALGO; empty: all), and the list
  /// as given (it keys resume and merge). Refused when no row runs NCCL's choice.
  std::vector<algo::NcclFamily> nccl_algorithms;
  std::string nccl_algo;
  /// GPUs one host thread drives (ModelOptions::gpus_per_thread); empty: one. Keys resume and merge.
  std::optional<std::uint32_t> gpus_per_thread;
  RowFormat format = RowFormat::Csv;
  std::uint32_t shard = 0;                 ///< run rows shard, shard + shards, ... (0 <= shard < shards)
  std::uint32_t shards = 1;
  bool sharded = false;                    ///< write shard files (head and end lines) even for 0/1
};

/// One row: which topology, N, algorithm (of its collective) and size.
struct SweepJob {
  std::size_t topology = 0;
  std::uint32_t ranks = 0;
  const algo::AlgorithmInfo* algorithm = nullptr;  ///< null: NCCL's choice for the row (run/nccl_choice.hpp)
  Bytes size = 0;
  sched::Collective collective = sched::Collective::AllReduce;

  /// The algorithm's name as the row asked for it ("nccl" for NCCL's choice).
  [[nodiscard]] std::string_view name() const { return algorithm ? algorithm->name : std::string_view("nccl"); }
};

/// A sweep ready to run: its rows, this shard's share of them, and what identifies it.
struct SweepPlan {
  SweepRequest request;
  std::vector<SweepJob> jobs;        ///< every row, in order
  std::vector<std::size_t> mine;     ///< this shard's rows
  std::size_t too_few_gpus = 0;      ///< topology/ranks pairs left out (more ranks than GPUs)
  ModelOptions model;                ///< the parameter file read once
  /// The registry the rows' algorithms come from (NCCL's choice picks from it per row).
  const algo::AlgorithmRegistry* registry = nullptr;
  std::string options_text;          ///< the options that key the sweep
  std::string fingerprint_text;      ///< the topologies, parameters and rows that key it
};

/// Plans `request` with the algorithms of `registry`. Throws RequestError (Field::Algorithms for a
/// name that no collective of the sweep has or that is unknown, Field::Ranks when no topology has that
/// many GPUs, Field::Params for a bad file, and for more than kMaxSweepRows rows).
[[nodiscard]] SweepPlan plan_sweep(SweepRequest request, const algo::AlgorithmRegistry& registry);

/// Runs row `mine[k]` of `plan`: its record, a skip with the reason (field references in place,
/// run/errors.hpp render()) when the algorithm or an option cannot serve it,
/// or a record with its error column set when its time passes the clock. Safe on several threads.
/// Throws sim::Stopped once `stop` holds true (sim::RunOptions::stop; run_jobs sets it on a signal).
[[nodiscard]] JobOutcome run_sweep_row(const SweepPlan& plan, std::size_t k, const std::atomic<bool>* stop = nullptr);

/// The job runner's settings for `plan`: the header (with the shard head line for a shard), the
/// footer, the fingerprint and the row count. The caller sets output, resume, threads, progress.
[[nodiscard]] SweepRunSpec sweep_run_spec(const SweepPlan& plan);

/// "first ALGORITHM on N ranks of TOPOLOGY: REASON" for the first skipped row of `report`.
[[nodiscard]] std::string first_skip(const SweepPlan& plan, const SweepRunReport& report);

}  // namespace collsim::run
