// What collsim knows about GPU models by name: the memory bandwidth behind a GPU's default
// reduction bandwidth, and its architecture, which decides NCCL's NVLS constants.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/units/units.hpp"

namespace collsim::topo {

/// The memory bandwidth of GPU `model` (a topology node's "model", e.g. "A100-SXM4-80GB"), from
/// NVIDIA's datasheets; nullopt for a model it does not know. Matching ignores case, takes a space or an
/// underscore for a dash ("H100 PCIe" is "H100-PCIe"), skips a leading "NVIDIA " (as nvidia-smi
/// names the GPU, e.g. "NVIDIA H100 80GB HBM3"), and takes the longest known prefix.
std::optional<Bandwidth> gpu_memory_bandwidth(std::string_view model);

/// Whether `model` names a GPU collsim knows (gpu_memory_bandwidth's matching).
[[nodiscard]] bool known_gpu_model(std::string_view model);

/// The names known_gpu_model matches (by prefix), for messages: "A100, A100-PCIe-80GB, ...".
[[nodiscard]] std::string known_gpu_model_names();

/// The rate at which a GPU of `model` reduces a received buffer into its own: a third of its
/// memory bandwidth, since adding n bytes reads 2n bytes (both operands) and writes n. nullopt for
/// an unknown model.
std::optional<Bandwidth> default_reduce_bandwidth(std::string_view model);

/// The GPU architectures NCCL's tuning tables tell apart (NCCL_*_COMPCAP_IDX, src/graph/tuning.cc):
/// Volta (sm70), Ampere (sm80, also Ada sm89 in NCCL's index), Hopper (sm90), Blackwell (sm100).
enum class GpuArch : std::uint8_t { Volta, Ampere, Hopper, Blackwell };

/// The architecture of GPU `model` (A100, L40S: Ampere's index; H100, H200: Hopper; B200, GB200:
/// Blackwell; V100: Volta); nullopt for a model it does not know. Matching ignores case.
std::optional<GpuArch> gpu_arch(std::string_view model);

/// NCCL's nvlsEfficiency for `arch` (src/graph/tuning.cc, NCCL 2.30.7): the share of the NVLink
/// bandwidth an NVLS collective reaches, Hopper 0.85, Blackwell 0.74; nullopt for Volta and
/// Ampere, which have no NVLink SHARP (NCCL's 0).
std::optional<double> nvls_efficiency(GpuArch arch) noexcept;

/// NCCL's default NVLS channel count for `arch` on `nodes` nodes whose NICs run at `nic_GBps`
/// (GB/s, 1e9 B/s; ncclNvlsTuning and ncclNvlsTreeSm100Tuning, src/transport/nvls.cc, NCCL 2.30.7):
/// Hopper and the others NVLS_NCHANNELS_SM90 16; Blackwell on one node NVLS_NCHANNELS_SM100_NVL 24,
/// across nodes NVLS_NCHANNELS_SM100 32, except 24 on more than two nodes with NICs of 48 GB/s or
/// more and on any number with NICs of 96 GB/s or more (NCCL's rule for up to 8 GPUs per node,
/// which every bundled machine has; it keeps 32 above 8).
std::uint32_t nvls_channels(GpuArch arch, std::uint32_t nodes = 1, double nic_GBps = 0) noexcept;

}  // namespace collsim::topo
