// One simulated collective, from "this algorithm on these ranks of this topology" to its summary:
// the code path shared by `simulate` (one run) and `sweep` (many runs on many threads).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/registry.hpp"
#include "sim/engine.hpp"
#include "sim/summary.hpp"
#include "tools/options.hpp"
#include "topologies/topology.hpp"

namespace collsim::cli {

/// What to simulate and where each rank runs; the topology is held by the caller.
struct Plan {
  sched::Schedule schedule;
  std::vector<topo::NodeId> rank_to_node;
  std::optional<algo::Request> request;  ///< what a built-in algorithm was asked for (for its closed form)
};

/// A run of a plan: the engine's result and the summary, with the closed form when there is one.
struct Simulated {
  sim::Result result;
  sim::Summary summary;
};

/// Runs ranks nranks.. (helpers, such as parameter servers on a CPU) on the nodes `ids` of
/// `topology`; throws UsageError (--ps-node) for an unknown node or one that already runs a rank.
void place_helpers(const topo::Topology& topology, const std::vector<std::string>& ids,
                   std::vector<topo::NodeId>& rank_to_node);

/// Builds `algorithm` for `ranks` ranks (the first GPUs of `topology`, 1 <= ranks <= GPUs) and
/// `size` bytes with the options of `flags`, cut in whole elements of `element_size` bytes where S
/// allows (algo::Request::element_size; --dtype). Throws UsageError naming a flag for bad options and
/// algo::AlgorithmError when the algorithm cannot serve the request (e.g. hierarchical on one host).
Plan build_plan(const algo::AlgorithmInfo& algorithm, const topo::Topology& topology, std::uint32_t ranks,
                const AlgorithmOptions& flags, Bytes size, Bytes element_size);

/// Checks that `name` is a network model (net::network_model_names()); throws UsageError naming
/// --network and the valid models otherwise.
void check_network_name(std::string_view name);

/// Simulates `plan` on `topology` with the network model named `network` (UsageError naming
/// --network for an unknown one), telling `observer` (when not null) when transfers transmit.
/// Adds the algorithm's closed form to the summary when it has one for this fabric.
Simulated simulate_plan(const Plan& plan, const topo::Topology& topology, std::string_view network,
                        net::TransferObserver* observer = nullptr);

}  // namespace collsim::cli
