#include "python/calls.hpp"
#include "python/interruptible.hpp"
#include "python/keywords.hpp"
#include "python/raise_error.hpp"
#include "python/topology_handle.hpp"
#include "reports/simulate_report.hpp"
#include "run/algorithm_list.hpp"
#include "run/simulate.hpp"
#include "run/text_request.hpp"

namespace collsim::python {

std::string simulate(const py::object& topology, const py::dict& options) {
  return translating([&] {
    run::SimulateText text;
    const auto given = topology_argument("simulate", topology, text.topology);
    fill("simulate", options, [&](std::string_view k) -> Slot {
      if (const Slot s = topology_slot(text.topology, k); s.text) return s;
      if (const Slot s = algorithm_slot(text.options, k); s.text) return s;
      if (const Slot s = model_slot(text.model, k); s.text) return s;
      if (k == "collective") return {&text.collective};
      if (k == "algorithm") return {&text.algorithm};
      if (k == "size") return {&text.size};
      if (k == "ranks") return {&text.ranks};
      if (k == "dtype") return {&text.dtype};
      if (k == "network") return {&text.network};
      if (k == "op") return {&text.op};
      if (k == "verify") return {nullptr, false, false, &text.verify};
      return {};
    });
    run::SimulationRequest request = run::simulation_request(text);
    request.topology.given = given;
    // Without the GIL, on a thread of its own: Ctrl-C stops it (python/interruptible.hpp).
    return interruptible([&](const std::atomic<bool>* stop) {
      request.stop = stop;
      const run::Simulation s = run::simulate(request);
      const run::Outcome& o = s.outcome;
      const reports::SimulationView view{o.run.summary, o.run.result, s.prepared.topology, s.prepared.plan.rank_to_node,
                                         o.check ? &*o.check : nullptr};
      return reports::render_json(view);
    });
  });
}

std::string algorithms() { return run::algorithms_json(run::builtin_algorithms()); }

}  // namespace collsim::python
