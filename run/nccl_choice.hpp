// NCCL's choice of algorithm per size (`--algorithm nccl`, alias `auto`): among the registry's
// entries that stand for NCCL's algorithms (AlgorithmInfo::nccl_default: ring, nccl-tree, nvls),
// the one whose time under NCCL's cost model (sim/nccl_formula.hpp, at the protocol NCCL would pick)
// is least, as ncclTopoGetAlgoInfo does with the tables ncclTopoTuneModel fills (NVIDIA/nccl 2.30.7
// src/enqueue.cc, src/graph/tuning.cc). An algorithm that cannot run there (NVLS without a switch
// that reduces, a tree for another collective) is left out, as NCCL zeroes its bandwidth.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/registry.hpp"
#include "run/request.hpp"
#include "topologies/routes.hpp"
#include "topologies/topology.hpp"

namespace collsim::run {

/// True for the names that ask for NCCL's choice: "nccl" and its alias "auto".
[[nodiscard]] bool is_nccl_choice(std::string_view algorithm) noexcept;

/// One algorithm NCCL could run, and its time under NCCL's model (nullopt: it cannot run here,
/// `why` says).
struct NcclCandidate {
  const algo::AlgorithmInfo* entry = nullptr;
  std::optional<topo::Protocol> protocol;
  std::optional<Time> time;
  std::string why;
};

/// The pick and every candidate weighed, in NCCL's algorithm order (tree, ring, NVLS: NCCL_ALGO_*),
/// which breaks ties as NCCL's strict "less than" does.
struct NcclChoice {
  const algo::AlgorithmInfo* entry = nullptr;
  std::vector<NcclCandidate> candidates;
  /// For reports: "nvls: NCCL's pick for 1 GiB (its cost model, src/graph/tuning.cc 2.30.7): nvls/simple
  /// 1860.44 us, ring/simple 2611.01 us, nccl-tree/simple 4012.3 us".
  [[nodiscard]] std::string reason(Bytes size) const;
};

/// NCCL's choice for `collective` of `size` bytes on the GPUs `ranks` of `topology` under `model`
/// (its protocol restricts the protocols, as NCCL_PROTO does), among the families in `allowed`
/// (empty: all; NCCL_ALGO). Throws RequestError (Field::Algorithm) when no candidate can run, naming
/// why each could not.
[[nodiscard]] NcclChoice choose_nccl_algorithm(const algo::AlgorithmRegistry& registry, const topo::Topology& topology,
                                               std::span<const topo::NodeId> ranks, sched::Collective collective,
                                               Bytes size, const ModelOptions& model,
                                               std::span<const algo::NcclFamily> allowed = {},
                                               topo::PathTable* paths = nullptr);

}  // namespace collsim::run
