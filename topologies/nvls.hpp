// NVLink SHARP (NVLS): an NVSwitch that reduces what its GPUs send it and multicasts the result
// (NVIDIA Hopper architecture whitepaper, "NVLink SHARP"; NCCL's NVLS algorithm, src/transport/nvls.cc).
// Which switch of a topology can do it for a set of GPUs, and NCCL's constants for it there.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "topologies/gpu_models.hpp"
#include "topologies/topology.hpp"

namespace collsim::topo {

/// The switch that reduces for a set of GPUs, with NCCL's constants for them.
struct NvlsDomain {
  NodeId nvswitch = 0;
  /// NCCL's nvlsEfficiency for the GPUs' architecture (gpu_models.hpp; the smallest when they
  /// differ): the share of the NVLink bandwidth an NVLS collective reaches. 1 when no GPU's model
  /// has one and the switch says "nvls": true (collsim then knows no better than the line rate).
  double efficiency = 1.0;
  /// NCCL's NVLS channel count for the architecture on one node (nvls_channels; 16 when it is
  /// unknown).
  std::uint32_t channels = 16;
  /// The GPUs' architecture (the oldest when they differ); nullopt when some model is unknown.
  std::optional<GpuArch> arch{};
};

/// The switch through which every GPU of `gpus` reaches the others by one link of its own, when
/// that switch reduces: its "nvls" is true, or it leaves "nvls" unset, the GPUs' links to it are
/// NVSwitch links and every GPU's model has an NVLS architecture (Hopper, Blackwell). nullopt
/// otherwise, with the reason in `why` when given ("gpu3 has no link to a switch shared by the
/// others", "switch nvswitch says \"nvls\": false", "gpu0 (A100-SXM4-80GB) has no NVLink SHARP").
/// With one GPU, its first such switch.
std::optional<NvlsDomain> nvls_domain(const Topology& topology, std::span<const NodeId> gpus, std::string* why = nullptr);

}  // namespace collsim::topo
