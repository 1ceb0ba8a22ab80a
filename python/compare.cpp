#include "python/calls.hpp"
#include "python/keywords.hpp"
#include "python/raise_error.hpp"
#include "python/topology_handle.hpp"
#include "reports/compare_report.hpp"
#include "run/log_prediction.hpp"
#include "run/option_names.hpp"
#include "run/text_request.hpp"

namespace collsim::python {

py::tuple compare(const py::object& log, const py::object& topology, const py::dict& options) {
  return translating([&] {
    run::LogText text;
    py::dict with_log;
    with_log["log"] = log;
    fill("compare", with_log, [&](std::string_view k) -> Slot { return {k == "log" ? &text.log : nullptr, false, true}; });
    const auto given = topology_argument("compare", topology, text.topology);
    fill("compare", options, [&](std::string_view k) -> Slot {
      if (const Slot s = topology_slot(text.topology, k); s.text) return s;
      if (const Slot s = model_slot(text.model, k, false); s.text) return s;
      if (k == "algorithm") return {&text.algorithm};
      if (k == "ranks") return {&text.ranks};
      if (k == "collective") return {&text.collective};
      if (k == "network") return {&text.network};
      if (k == "jobs") return {&text.jobs};
      return {};
    });
    run::LogRequest request = run::log_request(text);
    request.topology.given = given;
    std::string document;
    std::vector<std::string> warnings;
    {
      py::gil_scoped_release release;
      const run::LogRun log_run = run::open_log_run(request);
      run::LogComparison comparison = run::compare_log(log_run, request, run::flag_spelling);
      document = reports::render_compare_json(comparison.view);
      warnings = std::move(comparison.warnings);
    }
    py::list lines;
    for (auto& w : warnings) {
      while (!w.empty() && w.back() == '\n') w.pop_back();
      lines.append(w);
    }
    return py::make_tuple(py::str(document), lines);
  });
}

}  // namespace collsim::python
