// How a request's model options (protocol, channels, slice, params, max_ops), a parameter file and the
// topology's own parameters combine into what a run uses, with the source of every value
// (topologies/model_params.hpp has the layering).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "run/request.hpp"
#include "sim/op_costs.hpp"
#include "topologies/model_params.hpp"
#include "topologies/nvls.hpp"
#include "topologies/routes.hpp"
#include "topologies/topology.hpp"

namespace collsim::run {

/// What one run uses, and where each value came from ("topology dgx-a100", "--params f.json",
/// "--protocol", "default").
struct Fidelity {
  topo::ModelParams params;                ///< every layer merged
  std::optional<topo::Protocol> protocol;  ///< nullopt: none (the ideal α-β model)
  bool protocol_auto = false;              ///< picked per size by NCCL's rule (protocol_rule)
  /// How an auto protocol was picked, for reports: NCCL's cost model, or its send/recv rule.
  std::string protocol_rule = "NCCL's cost model";
  std::string protocol_source = "default";
  std::uint32_t channels = 1;
  std::string channels_source = "default";
  /// The channels NCCL's cost model weighs (its nChannels): `channels` before NCCL's reduction for
  /// small sizes (topoGetAlgoInfo), which applies to the run only.
  std::uint32_t nccl_channels = 1;
  Bytes slice = 0;                         ///< 0: chunks move whole
  std::string slice_source = "default";
  bool slice_requested = false;            ///< the request's slice option set it (a too-fine one is refused)
  /// Most ops once pipeline chunks and slices are cut (max_ops; run/plan.hpp). A run
  /// takes about 200 B and, on a contended NVSwitch, 1 to 3 microseconds per op
  /// (bench/PROFILE.md 3.7), so the default keeps one under about a second.
  std::uint64_t max_ops = std::uint64_t{1} << 18;
  bool max_ops_requested = false;  ///< the request's max_ops set it (reports then name the flag's value)
  /// How reports name the budget: "--max-ops N" when the request set it, else "the default op
  /// budget N (--max-ops)".
  /// `in_error`: for a RequestError's message, naming the field as the front end spells it.
  [[nodiscard]] std::string op_budget_text(std::uint64_t allowed, bool in_error = false) const;
  sim::CostSettings costs;
  /// Which of NCCL's algorithms runs (algo::AlgorithmInfo::family).
  algo::NcclFamily nccl = algo::NcclFamily::None;
  /// NVLS: the switch that reduces for the ranks and NCCL's constants there (set for the Nvls
  /// family on more than one rank; its efficiency is already in costs.bandwidth_factor).
  std::optional<topo::NvlsDomain> nvls;
  /// The switches that reduce, where the run places a switch_reduction schedule's helpers, in
  /// order: NVLS its one switch; NVLSTree each host's of more than one rank, in host order (`nvls`
  /// then holds the first one's, the smallest efficiency and NCCL's channel count for that many
  /// nodes); CollNet the network's "sharp" switch when the ranks span hosts.
  std::vector<topo::NodeId> reduction_switches;
  /// The host (topologies/host_costs.hpp): GPUs one thread drives (ModelOptions::gpus_per_thread)
  /// and what it costs per iteration: gpus_per_thread x host_launch for a collective that
  /// launches, gpus_per_thread x host_empty_call for one of 0 bytes. Both 0 without a protocol
  /// (the ideal α-β model adds nothing).
  std::uint32_t gpus_per_thread = 1;
  std::string gpus_per_thread_source = "default: one process per GPU";
  Time host_floor{0};
  Time host_empty{0};
};

/// What the options protocol, channels and slice set, as the top layer of parameters. Throws
/// RequestError for channels outside 1..64, and for channels with a schedule file (`schedule_file`),
/// whose ops carry their own channels.
topo::ModelParams option_params(const ModelOptions& options, bool schedule_file);

/// The parameter file `path` of the params option (topo::load_model_params_file). Throws
/// RequestError (Field::Params) with the loader's message, e.g. "DIR is a directory; expected a
/// parameter JSON file".
topo::ModelParams load_params_file(const std::string& path);

/// Routes come from `paths` when given (topo::PathTable).
/// The fidelity of running an algorithm of NCCL family `family` (algo::AlgorithmInfo::family; None
/// for one NCCL lacks, whose costs come from NCCL's ring row) on `topology` (participant r on
/// rank_to_node[r]; only the participants are given).
/// `request` is nullopt for a schedule file, which brings its own channels (--channels is then an
/// error). Throws RequestError for bad options or a collective that cannot split over
/// channels, for a bad parameter file, and for the Nvls family: on ranks no switch reduces for
/// (Field::Algorithm) or under a protocol other than Simple (Field::Protocol; NVLS runs Simple only,
/// ncclTopoTuneModel). NVLS also takes NCCL's NVLS channel count (topo::NvlsDomain) in place of
/// the topology's, and its efficiency on NVLink-class links. The NvlsTree family likewise, with a
/// switch that reduces in each host of more than one rank (else the RequestError names the host).
Fidelity resolve_fidelity(const ModelOptions& options, const topo::Topology& topology,
                          std::span<const topo::NodeId> rank_to_node, algo::NcclFamily family,
                          sched::Collective collective, Bytes size, const std::optional<algo::Request>& request,
                          topo::PathTable* paths = nullptr);

/// NCCL's formula for this run (sim/nccl_formula.hpp), at the protocol in use, or at the one NCCL
/// would pick when the run has none. nullopt where NCCL has no such algorithm (fidelity.nccl is
/// None); `algorithm` only names it in errors. Throws RequestError when
/// the formula's time does not fit on the clock (2^63 ps; it saturated).
std::optional<Time> nccl_model_time(const Fidelity& fidelity, const topo::Topology& topology,
                                    std::span<const topo::NodeId> rank_to_node, std::string_view algorithm,
                                    sched::Collective collective, Bytes size, topo::PathTable* paths = nullptr);

}  // namespace collsim::run
