#include "python/topology_handle.hpp"

#include <fmt/format.h>

#include "python/keywords.hpp"
#include "python/raise_error.hpp"
#include "topologies/export.hpp"
#include "topologies/load_json.hpp"

namespace collsim::python {

TopologyHandle make_topology(const py::object& spec, const py::object& document, const py::dict& options) {
  return translating([&] {
    if (py::isinstance<TopologyHandle>(spec) && options.empty()) return spec.cast<TopologyHandle>();
    run::TopologyText text;
    fill("topology", options, [&](std::string_view k) { return topology_slot(text, k); });
    run::TopologySpec s = run::topology_spec(text);
    s.given = topology_argument("topology", spec, text);
    s.name = text.name;
    const std::string json = document.is_none() ? std::string() : document.cast<std::string>();
    py::gil_scoped_release release;
    if (!json.empty()) s.given = std::make_shared<const topo::Topology>(topo::parse_topology_json(json, "dict", "topology"));
    // A generated fabric keeps its name for a sweep's fabric column, as `collsim sweep --fabric` does.
    return TopologyHandle{std::make_shared<const topo::Topology>(run::load_topology(s)), s.generated() ? text.fabric : ""};
  });
}

std::shared_ptr<const topo::Topology> topology_argument(std::string_view function, const py::object& topology,
                                                        run::TopologyText& text) {
  if (topology.is_none()) return nullptr;
  if (py::isinstance<TopologyHandle>(topology)) return topology.cast<const TopologyHandle&>().topology;
  if (py::isinstance<py::str>(topology)) {
    text.name = topology.cast<std::string>();
    if (text.name.empty())
      throw run::RequestError(run::Field::Topology, "",
                              fmt::format("{}: found an empty value, expected one", run::ref(run::Field::Topology)));
    return nullptr;
  }
  throw py::type_error(fmt::format("{}(): topology must be a str, an os.PathLike, a dict or a collsim.Topology, not {}",
                                   function, py::str(py::type::handle_of(topology).attr("__name__")).cast<std::string>()));
}

void bind_topology(py::module_& m) {
  py::class_<TopologyHandle>(m, "TopologyHandle", "A topology built by collsim.topology() (immutable)")
      .def_property_readonly("name", [](const TopologyHandle& h) { return h.topology->name(); })
      .def_property_readonly("description", [](const TopologyHandle& h) { return h.topology->description(); })
      .def_property_readonly("gpus", [](const TopologyHandle& h) { return h.topology->gpus().size(); })
      .def_property_readonly("fabric", [](const TopologyHandle& h) { return h.fabric; })
      .def("to_json", [](const TopologyHandle& h) { return topo::normalized_json(*h.topology); },
           "The normalised topology file (topologies/export.hpp), which loads back to the same machine");
}

}  // namespace collsim::python
