// Topologies built from Python (collsim.topology()): immutable and shared, so that one can be
// passed to many simulations and sweeps without being loaded again.
#pragma once

#include <memory>
#include <string>

#include <pybind11/pybind11.h>

#include "run/text_request.hpp"
#include "topologies/topology.hpp"

namespace collsim::python {

namespace py = pybind11;

/// A topology and the generator fabric that made it ("" for a file, a bundled name or a document).
struct TopologyHandle {
  std::shared_ptr<const topo::Topology> topology;
  std::string fabric;
};

/// The topology of `spec` (None, a file or bundled name, or a TopologyHandle, returned as it is),
/// `document` (None, or topology JSON text: a dict from Python, see topologies/load_json.hpp) and
/// the generator keywords in `options`; with none of them, the bundled default. Throws TypeError
/// for an unknown keyword, and as run::load_topology does.
[[nodiscard]] TopologyHandle make_topology(const py::object& spec, const py::object& document, const py::dict& options);

/// The topology argument of simulate and compare: None, a str (set as `text.name`) or a
/// TopologyHandle (returned); TypeError naming `function` for another type.
[[nodiscard]] std::shared_ptr<const topo::Topology> topology_argument(std::string_view function,
                                                                      const py::object& topology,
                                                                      run::TopologyText& text);

/// Registers the handle class (name, description, gpus, fabric, to_json) on `m`.
void bind_topology(py::module_& m);

}  // namespace collsim::python
