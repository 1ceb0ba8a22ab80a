// Reading topologies: JSON files, bundled topologies embedded in the program, and names.
//
// The format is documented by topologies/topology.schema.json. Every error is a TopologyError
// whose message names the file, the JSON path (a JSON Pointer such as /links/3/bandwidth), what
// was found and what was expected.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "topologies/topology.hpp"

namespace collsim::topo {

/// Parses topology JSON `text`. `where` names its origin in messages (a path or "bundled:x");
/// `default_name` is the topology's name when the document has no "name".
Topology parse_topology_json(std::string_view text, std::string_view where, std::string default_name);

/// Reads and parses a topology file; its stem is the default name.
Topology load_topology_file(const std::filesystem::path& path);

/// The names of the topologies built into the program ("dgx-a100", ...), sorted.
std::span<const std::string_view> bundled_topology_names();

/// Loads `spec`: an existing file, else a bundled name (with or without ".json").
/// Throws TopologyError naming both possibilities and listing the bundled names.
Topology load_topology(std::string_view spec);

}  // namespace collsim::topo
