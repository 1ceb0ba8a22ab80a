// One simulated collective, from "this algorithm on these ranks of this topology" to its summary:
// the code path shared by every run (one simulation, each row of a sweep, each row of a log).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/registry.hpp"
#include "sim/engine.hpp"
#include "sim/summary.hpp"
#include "run/fidelity.hpp"
#include "run/request.hpp"
#include "topologies/topology.hpp"

namespace collsim::run {

/// What to simulate and where each rank runs; the topology is held by the caller.
struct Plan {
  /// The schedule; only its header (no ops) when `stream` is set.
  sched::Schedule schedule;
  std::vector<topo::NodeId> rank_to_node;
  std::optional<algo::Request> request;  ///< what a built-in algorithm was asked for (for its closed form)
  Fidelity fidelity;  ///< protocol, channels, slice and costs (run/fidelity.hpp)
  Bytes chunk = 0;    ///< pipeline chunk of a chunked algorithm (chunk_size), 0 for the others
  std::string chunk_source = "default";
  /// Where the runs of this plan find their routes' links (topo::PathTable), or null for their own.
  topo::PathTable* paths = nullptr;
  /// By channel: how many identical channels each of `schedule`'s channels stands for (Ops::TimesOnly),
  /// or empty when it holds every channel (sim::RunOptions::channel_copies).
  std::vector<std::uint32_t> channel_copies{};
  /// The ops generated on demand (issue 7 point 2), or null when `schedule` holds them.
  std::unique_ptr<sched::OpStream> stream{};
  /// Whether a rank-symmetric run of `stream` may simulate one period of ranks (sim::RunOptions::
  /// fold_ranks); the benchmarks turn it off to time the engine on every rank.
  bool fold_ranks = true;
  /// The built-in algorithm's closed form (algo::AlgorithmInfo::closed_form_time), null for a
  /// schedule file or an algorithm without one.
  std::optional<Time> (*closed_form)(const algo::Request&, const algo::AlphaBeta&) = nullptr;
  /// Why this algorithm runs when NCCL's choice picked it (`--algorithm nccl`: NcclChoice::reason),
  /// else empty.
  std::string algorithm_choice{};
};

/// Whether a plan may generate its ops on demand: OnDemand when nothing will read them (no
/// replay check, saved schedule or trace), so memory stays O(N); Materialised otherwise.
/// TimesOnly: as OnDemand, and nothing reads the run's ops or event count either, only its times
/// and traffic (compare, calibrate): identical channels are kept once each with their count
/// (algo::build_folded_channels, Plan::channel_copies), which the network model times as copies.
enum class Ops { Materialised, OnDemand, TimesOnly };

/// A run of a plan: the engine's result and the summary, with the closed form when there is one.
struct Simulated {
  sim::Result result;
  sim::Summary summary;
};

/// Runs ranks nranks.. (helpers, such as parameter servers on a CPU) on the nodes `ids` of
/// `topology`; throws RequestError (Field::PsNode) for an unknown node or one that already runs a rank.
void place_helpers(const topo::Topology& topology, const std::vector<std::string>& ids,
                   std::vector<topo::NodeId>& rank_to_node);

/// Cuts `plan`'s chunks into slices when its fidelity says so (sim/schedule/slicing.hpp); the
/// schedule that runs, is verified and is saved is the sliced one. A size whose bytes alone pass the
/// clock's end on the fastest link of `topology` is refused (UnitError) before it is cut up. Slicing
/// may give at most max(max_ops, unsliced ops) ops: a slice from the slice option that gives more is
/// refused (RequestError naming it and the smallest slice that fits); one from a topology, a parameter
/// file or NCCL's default is doubled until it fits, and its source says so.
void apply_slicing(Plan& plan, const topo::Topology& topology);

/// The algo::Request for `algorithm` on `nranks` ranks and `size` bytes with `options`. Throws
/// RequestError for an option the algorithm does not use (root outside broadcast and reduce,
/// chunk_size for an algorithm not pipelined, ps_shards and ps_node outside the parameter server)
/// or a value out of range (root >= N, chunk_size 0, ps_shards outside 1..N, ps_node's count).
algo::Request make_request(const algo::AlgorithmInfo& algorithm, const AlgorithmOptions& options, std::uint32_t nranks,
                           Bytes size);

/// The algorithms pipelined in chunks (AlgorithmInfo::pipelined), as error messages name them.
inline constexpr std::string_view kPipelinedAlgorithms =
    "tree, double-tree, nccl-tree, nvls, nvls-tree, collnet, or ring broadcast and reduce";

/// Refuses an option that `algorithm` would not use (RequestError naming it and what uses it). A
/// single run says so rather than ignore an option; a sweep applies each option to the rows that use it.
void check_used_by(const AlgorithmOptions& options, const algo::AlgorithmInfo& algorithm);

/// Builds `algorithm` for `ranks` ranks (the first GPUs of `topology`, 1 <= ranks <= GPUs) and
/// `size` bytes with `options`, cut in whole elements of `element_size` bytes where S allows
/// (algo::Request::element_size; dtype). Throws RequestError for bad options and
/// algo::AlgorithmError when the algorithm cannot serve the request (e.g. hierarchical on one host).
/// A chunked algorithm (tree, ring broadcast/reduce) may have at most max(max_ops, its unpipelined
/// ops) ops: a chunk_size that gives more is refused (RequestError naming it and the smallest chunk
/// that fits), the default chunk is doubled until it fits. Its runs take their routes from `paths`
/// when given.
/// With Ops::OnDemand the plan takes the algorithm's stream instead of building its schedule when
/// it has one and the run is one channel whose slicing would cut nothing (no slice, or every chunk
/// at most a slice); per-op costs are priced as ops start (sim::OpCostModel). With Ops::TimesOnly the same, and a plan of
/// several channels folds its identical channels (Plan::channel_copies), for a network model that
/// folds copies (net::network_folds_copies; the caller's to check): its runs give the full plan's times and traffic
/// (tests/unit/folded_channels_test.cpp holds them to it op by op), in fewer events. The op
/// budgets count the ops the folded channels stand for, so the slice and chunk are the full plan's.
Plan build_plan(const algo::AlgorithmInfo& algorithm, const topo::Topology& topology, std::uint32_t ranks,
                const AlgorithmOptions& options, Bytes size, Bytes element_size, const ModelOptions& model,
                Ops ops = Ops::Materialised,
                topo::PathTable* paths = nullptr);

/// Writes a one-line note to `err` when `plan` has a billion transfers or more to simulate on
/// `topology` (those of one period of ranks where the run folds by rank symmetry, sim/rank_fold.hpp):
/// such a run takes minutes (about 5 million transfers a second for a ring, docs/performance.md)
/// and prints nothing until it ends, so a user who asked for 100,000 GPUs is not left waiting in silence.
void long_run_notice(const Plan& plan, const topo::Topology& topology, std::ostream& err);

/// Checks that `name` is a network model (net::network_model_names()); throws RequestError
/// (Field::Network) listing the valid models otherwise.
void check_network_name(std::string_view name);

/// Simulates `plan` on `topology` with the network model named `network` (RequestError for an
/// unknown one), telling `observer` (when not null) when transfers transmit. Throws sim::Stopped
/// once `stop` (when not null) holds true (sim::RunOptions::stop); `op_observer` (when not null)
/// is told when each op ends (by op id, or by the stream's key for a plan that streams); `progress`
/// (when not null) how many ops are done now and then.
/// The network sees each link at what the plan's protocol leaves of its bandwidth, and the engine
/// adds the protocol's base and per-step latencies and the reduction costs (sim/op_costs.hpp).
/// Adds the algorithm's closed form to the summary when it has one for this fabric, and `formula`'s
/// time as a second opinion.
Simulated simulate_plan(const Plan& plan, const topo::Topology& topology, std::string_view network,
                        Formula formula = Formula::None, net::TransferObserver* observer = nullptr,
                        const std::atomic<bool>* stop = nullptr, sim::OpObserver* op_observer = nullptr,
                        sim::ProgressObserver* progress = nullptr);

}  // namespace collsim::run
