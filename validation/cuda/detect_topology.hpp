// The topology of the GPUs of this machine, for `collsim topo --detect` and `collsim validate`.
#pragma once

#include <cstdint>
#include <string>

#include "validation/cuda/gpu_runtime.hpp"
#include "validation/cuda/nvidia_smi_topo.hpp"

namespace collsim::cuda {

/// A topology JSON document for the GPUs `probe` found (precondition: at least one):
///  * ranks_per_gpu > 1 or a single GPU: virtual_gpu_topology_json with K · GPUs ranks at the copy
///    rate measured on GPU 0 with that many copies at once (several ranks share one GPU's memory);
///  * otherwise the matrix of `nvidia-smi topo -m` (smi_topology_json), at the NVLink rate of the
///    GPUs' generation; where nvidia-smi is missing or unreadable, peer access from the CUDA runtime
///    (a peer pair is taken as one PCIe switch apart, any other pair as SYS).
/// Throws GpuError when a measurement fails.
[[nodiscard]] std::string detect_topology_json(const Probe& probe, std::uint32_t ranks_per_gpu);

/// The matrix `probe`'s peer access implies (PIX where peers, SYS elsewhere), for machines without nvidia-smi.
[[nodiscard]] SmiTopology topology_from_peer_access(const Probe& probe);

}  // namespace collsim::cuda
