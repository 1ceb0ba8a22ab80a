// One simulation, from a typed request to its result: what `collsim simulate` and
// `collsim.simulate()` in Python run, and what a log's rows are predicted with.
#pragma once

#include <cstdint>
#include <atomic>
#include <optional>
#include <ostream>
#include <string>

#include "algorithms/registry.hpp"
#include "run/errors.hpp"
#include "run/plan.hpp"
#include "run/request.hpp"
#include "sim/network/network_model.hpp"
#include "validation/cpu_replay.hpp"
#include "validation/dtype.hpp"

namespace collsim::run {

/// The algorithms that ship with collsim (algo::builtin_registry()), built once; immutable.
[[nodiscard]] const algo::AlgorithmRegistry& builtin_algorithms();

/// A valid request whose time does not fit on the clock (2^63 ps, about 106 days): a sweep or a
/// log comparison reports such a row and goes on with the others.
class OverflowError : public RequestError {
 public:
  using RequestError::RequestError;
};

/// What to simulate: a registered algorithm on the first `ranks` GPUs of a topology, or a schedule
/// file (`schedule`) that says its own collective, algorithm, ranks and size.
struct SimulationRequest {
  TopologySpec topology;
  sched::Collective collective = sched::Collective::AllReduce;
  std::string algorithm = "ring";       ///< a registry name (or alias)
  std::optional<Bytes> size;            ///< S as nccl-tests counts it; required without `schedule`
  std::optional<std::uint32_t> ranks;   ///< default: every GPU of the topology
  validation::DType dtype = validation::DType::Float32;  ///< elements that buffers are cut in
  AlgorithmOptions options;
  ModelOptions model;
  std::string network = "flow";         ///< net::network_model_names()
  std::string schedule;                 ///< a schedule JSON file instead of an algorithm ("" none)
  /// Replay the schedule on CPU buffers and check the collective's result (validation/cpu_replay.hpp).
  std::optional<validation::ReplayOptions> verify;
  /// When not null, the run ends with sim::Stopped soon after it holds true (sim::RunOptions::stop).
  const std::atomic<bool>* stop = nullptr;
  /// When not null, told how far the run has come (sim::RunOptions::progress).
  sim::ProgressObserver* progress = nullptr;
  /// Materialised: every op is kept in the plan (to save or trace it); OnDemand: generated as they run
  /// where the algorithm can, so memory stays O(N) (a replay check materialises them in any case);
  /// TimesOnly: identical channels folded as well, for a network model that folds copies (Ops).
  Ops ops = Ops::OnDemand;
};

/// A request made ready: its topology loaded and its plan built.
struct Prepared {
  topo::Topology topology;
  Plan plan;
};

/// Loads the topology and builds the plan of `request` with the algorithms of `registry`. Throws
/// RequestError naming the field at fault, algo::AlgorithmError for an unknown algorithm or one that
/// cannot serve the request, topo::TopologyError / sched::ScheduleFileError for files that cannot be
/// read, OverflowError when the size passes the clock on the fastest link.
[[nodiscard]] Prepared prepare(const SimulationRequest& request, const algo::AlgorithmRegistry& registry);

/// The plan of `request` on `topology`, loaded already (compare and calibrate reuse one topology for
/// every row), its runs finding their routes in `paths` when given (one table per topology).
/// Throws as prepare() does.
[[nodiscard]] Plan plan_on(const SimulationRequest& request, const topo::Topology& topology,
                           const algo::AlgorithmRegistry& registry, topo::PathTable* paths = nullptr);

/// What a simulation gives: the run, and the replay check when one was asked for.
struct Outcome {
  Simulated run;
  std::optional<validation::ReplayReport> check;
};

/// Runs `prepared` as `request` asks (its network, formula and replay check), telling `observer`
/// (when not null) when transfers transmit. Throws OverflowError when the time passes the clock,
/// RequestError for an unknown network model.
[[nodiscard]] Outcome run_prepared(const Prepared& prepared, const SimulationRequest& request,
                                   net::TransferObserver* observer = nullptr);

/// run_prepared() on a plan and the topology it was built on.
[[nodiscard]] Outcome run_plan(const Plan& plan, const topo::Topology& topology, const SimulationRequest& request,
                               net::TransferObserver* observer = nullptr);

/// prepare() then run_prepared().
struct Simulation {
  Prepared prepared;
  Outcome outcome;
};
[[nodiscard]] Simulation simulate(const SimulationRequest& request,
                                  const algo::AlgorithmRegistry& registry = builtin_algorithms());

}  // namespace collsim::run
