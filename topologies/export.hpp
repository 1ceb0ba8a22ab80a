// A topology written out: as Graphviz DOT (a picture of the fabric) and as normalised JSON (the
// topology file format of load_json.hpp, with every default made explicit and exact units).
#pragma once

#include <ostream>
#include <string>

#include "topologies/topology.hpp"

namespace collsim::topo {

/// Writes `t` as an undirected Graphviz graph through Boost.Graph's write_graphviz: one vertex per
/// node (labelled with its id; GPUs as boxes, switches as diamonds), one edge per link of the file
/// labelled "TYPE\nBANDWIDTH" per direction (and "half duplex" where it is).
void write_dot(const Topology& t, std::ostream& out);

/// `t` in the topology file format, pretty-printed: name, description (when not empty), nodes (id, type and, when
/// set, model, host and reduce_bandwidth in exact bits/s), links (from, to, type, bandwidth in exact
/// bits/s "Nb/s", latency in exact picoseconds "Nps", duplex), and the model parameters when it has
/// any ("params", as write_model_params_json writes them). Loading it gives the same topology, which
/// simulates to the same times; newline-terminated.
std::string normalized_json(const Topology& t);

}  // namespace collsim::topo
