// The bundled topology files, embedded at build time (generated bundled_topologies.cpp).
#pragma once

#include <span>
#include <string_view>

namespace collsim::topo {

struct BundledTopology {
  std::string_view name;  ///< file stem, e.g. "dgx-a100"
  std::string_view text;  ///< the JSON document
};

/// All bundled topologies, sorted by name.
std::span<const BundledTopology> bundled_topologies() noexcept;

}  // namespace collsim::topo
