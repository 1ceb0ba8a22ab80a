// The workloads of `collsim bench` and of the Google Benchmark suite (bench/): the bare event
// queue, all-reduce algorithms on generated fabrics, and a sweep (issue 7, point 1).
//
// A workload runs in the calling process and reports what it did (events, simulated time); timing
// and peak memory are measured around it by the caller (bench/bench_measure.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/units/units.hpp"
#include "run/sweep.hpp"
#include "run/text_request.hpp"
#include "topologies/generate.hpp"

namespace collsim::bench {

/// What one run of a workload did, as the workload counts it.
struct Work {
  std::uint64_t events = 0;          ///< events taken off the event queue (0: not counted)
  std::uint64_t ops = 0;             ///< ops of the schedule (0 for the queue)
  std::optional<Time> simulated;     ///< simulated completion time (collectives only)
};

/// Thrown by a workload that this build cannot run (e.g. `collsim sweep` does not exist yet);
/// reported as "not available", not as a failure.
class NotAvailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The hold model of priority-queue benchmarks (Jones 1986, "An empirical comparison of
/// priority-queue and event-set implementations"): fill an EventQueue with `pending` events at
/// pseudo-random times in [0, 1 us), then `events` times pop the earliest and push one at its time
/// plus a pseudo-random delay in [0, 1 us). The payload is 16 bytes, like the engine's. Work::events
/// = `events` (pops; each pop is followed by one push). Deterministic (xorshift64, fixed seed).
Work run_queue_hold(std::size_t pending, std::uint64_t events);

/// The engine's pattern for the event queue: `pending` ranks in lockstep, as in a ring all-reduce
/// on dedicated links. All start at time 0; `events` times pop the earliest and push it again at
/// its time plus, alternately, one transmission (1 MiB at 50 GB/s, 20,971,520 ps) and one latency
/// (1 us), so every pop shares its picosecond with `pending` - 1 others and the order rule's
/// insertion sequence decides each time. Work::events = `events`. Deterministic.
Work run_queue_ties(std::size_t pending, std::uint64_t events);

/// All-reduce with the registry's `algorithm` on `ranks` GPUs of a generated `fabric` whose links
/// have `bandwidth` per direction and `latency`, S = `size`, flow network model, as `collsim
/// simulate --gpus N --fabric F` runs it (run/plan.hpp: the max_ops budget, float32
/// elements, ops on demand where the algorithm has a stream, else a materialised schedule).
/// Throws what the builders and the engine throw (std::length_error when the schedule is too
/// large to materialise). With `fold_ranks` false every rank is simulated even where the run is
/// rank-symmetric (run::Plan::fold_ranks), as the CLI never does.
Work run_allreduce(std::string_view algorithm, topo::Fabric fabric, std::uint32_t ranks, Bytes size,
                   Bandwidth bandwidth, Time latency, bool fold_ranks);

/// One simulation as `collsim simulate` runs it from its flags (`text`, run/text_request.hpp):
/// the topology (bundled, generated or a cluster), NCCL's choice where the algorithm is "nccl",
/// the protocol and channels the plan picks; `fold_ranks` as for run_allreduce. Throws what the
/// request and the run throw.
Work run_text(const run::SimulateText& text, bool fold_ranks);

/// Runs every row of `request` on `threads` threads by the path of `collsim sweep` (run/sweep.hpp),
/// the rows kept in memory. Throws what plan_sweep and the rows throw.
Work run_sweep(run::SweepRequest request, unsigned threads);

/// `collsim compare LOG --node dgx-h100 --nodes N/8 --fabric fat-tree --algorithm ring --channels 32
/// --routing ROUTING -j threads` (ROUTING: ecmp, single, spray or dmodk) on a log of ring all-reduce rows written for it (nccl-tests' layout, sizes 1 MiB to
/// `size` by factors of 4; measured times from 50 GB/s and 20 us, which only the errors see), the
/// comparison kept in memory: issue 18's compare of 128 DGX H100 on 32 channels. Work::ops = the
/// rows. Throws what compare throws, and std::runtime_error when the log cannot be written.
Work run_compare_ring_32ch(std::uint32_t ranks, Bytes size, unsigned threads, std::string_view routing);

/// One case of the suite.
struct Case {
  std::string name;          ///< e.g. "queue/1024", "allreduce/ring/switch/4096", "sweep/dgx-a100"
  std::uint32_t ranks = 0;   ///< N of a collective (for --max-ranks); 0 for others
  bool heavy = false;        ///< left out by --quick
  std::function<Work()> run;
};

/// Parameters of the suite.
struct SuiteOptions {
  bool quick = false;                    ///< a short queue run (the caller also caps N)
  Bytes size = Bytes{1} << 30;           ///< S of the all-reduce cases
  Bandwidth bandwidth{50'000'000'000ULL * 8};  ///< per link and direction: 50 GB/s (issue 7)
  Time latency = Time{1'000'000};        ///< per link: 1 us (issue 7)
  std::vector<std::uint32_t> ranks{8, 64, 512, 4096, 16384};  ///< N of the all-reduce cases
};

/// Every case, in a fixed order: the queue with 1024 and 65536 pending events; ring, tree and
/// halving-doubling all-reduce at each N of options.ranks on the switch and ring fabrics; direct
/// all-reduce of 1 MiB on 24 channels of 58 GPUs on one switch (issue 14's contended burst); issue
/// 18's clusters: ring, tree and double-tree on N/8 hosts of 8 behind one network switch
/// (allreduce/A/switch-nodes/N), ring on one channel and NCCL's choice on N/8 DGX H100 of a rail
/// fabric (cluster/ring|nccl/dgx-h100-rail/N), compare of a log of ring rows on 32 channels of N/8
/// DGX H100 of a fat tree (compare/ring-32ch/dgx-h100-fat-tree/N), direct all-to-all on 32 DGX H100
/// of a 2:1 fat tree;
/// the 1,000-point sweep of dgx-a100.
std::vector<Case> suite(const SuiteOptions& options);

}  // namespace collsim::bench
