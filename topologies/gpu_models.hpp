// What collsim knows about GPU models by name: the memory bandwidth behind a GPU's default
// reduction bandwidth.
#pragma once

#include <optional>
#include <string_view>

#include "sim/units/units.hpp"

namespace collsim::topo {

/// The memory bandwidth of GPU `model` (a topology node's "model", e.g. "A100-SXM4-80GB"), from
/// NVIDIA's datasheets; nullopt for a model it does not know. Matching ignores case.
std::optional<Bandwidth> gpu_memory_bandwidth(std::string_view model);

/// The rate at which a GPU of `model` reduces a received buffer into its own: a third of its
/// memory bandwidth, since adding n bytes reads 2n bytes (both operands) and writes n. nullopt for
/// an unknown model.
std::optional<Bandwidth> default_reduce_bandwidth(std::string_view model);

}  // namespace collsim::topo
