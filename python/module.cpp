// collsim._collsim: the compiled part of the Python module collsim (collsim/__init__.py holds the
// public API). Its functions take the request as keywords and return the documents the command
// line prints (JSON, CSV).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/calls.hpp"
#include "python/topology_handle.hpp"
#include "topologies/load_json.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_collsim, m) {
  m.doc() = "collsim's compiled core; use the collsim package, not this module";
  collsim::python::bind_topology(m);
  m.def("simulate", &collsim::python::simulate, py::arg("topology"), py::arg("options"),
        "The JSON document of `collsim simulate --format json`");
  m.def("sweep", &collsim::python::sweep, py::arg("topologies"), py::arg("options"),
        "(CSV of `collsim sweep`, notices, signal)");
  m.def("compare", &collsim::python::compare, py::arg("log"), py::arg("topology"), py::arg("options"),
        "(JSON document of `collsim compare --format json`, warnings)");
  m.def("topology", &collsim::python::make_topology, py::arg("spec"), py::arg("document"), py::arg("options"),
        "A TopologyHandle from a name or file, a JSON document or generator keywords");
  m.def("train", &collsim::python::train, py::arg("topology"), py::arg("options"),
        "The JSON document of `collsim train --format json`");
  m.def("algorithms", &collsim::python::algorithms, "The JSON document of `collsim algorithms --format json`");
  m.def("bundled_topologies", [] {
    std::vector<std::string> names;
    for (const auto name : collsim::topo::bundled_topology_names()) names.emplace_back(name);
    return names;
  }, "The names of the bundled topologies, sorted");
}
