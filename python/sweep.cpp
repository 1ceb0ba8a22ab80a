#include <functional>
#include <sstream>
#include <vector>

#include "python/calls.hpp"
#include "python/keywords.hpp"
#include "python/raise_error.hpp"
#include "python/topology_handle.hpp"
#include "run/option_names.hpp"
#include "run/simulate.hpp"
#include "run/sweep.hpp"
#include "run/sweep_text.hpp"

namespace collsim::python {
namespace {

// What a sweep gives back.
struct SweepOutput {
  std::string csv;
  std::vector<std::string> notices;
  int signal = 0;
};

// As `collsim sweep` runs it, into memory: no output file, so no partial file either. `before_rows`
// runs once the sweep is planned, just before run_jobs takes SIGINT over.
SweepOutput run_sweep(run::SweepText text, const std::function<void()>& before_rows) {
  SweepOutput output;
  run::SweepSetup setup = run::sweep_setup(std::move(text));
  const run::SweepPlan plan = run::plan_sweep(std::move(setup.request), run::builtin_algorithms());
  if (const std::string notice = run::left_out_notice(plan); !notice.empty())
    output.notices.push_back(run::render(notice, run::flag_spelling));
  run::SweepRunSpec spec = run::sweep_run_spec(plan);
  spec.threads = setup.threads;
  spec.spelling = run::flag_spelling;
  std::ostringstream out, err;
  before_rows();
  const run::SweepRunReport report =
      run::run_jobs(spec, [&](std::size_t k, const std::atomic<bool>& stop) { return run::run_sweep_row(plan, k, &stop); }, out, err);
  for (auto& line : run::finished_notices(plan, spec, report, run::flag_spelling)) output.notices.push_back(line);
  output.csv = out.str();
  output.signal = report.signal;
  return output;
}

}  // namespace

py::tuple sweep(const py::list& topologies, const py::dict& options) {
  return translating([&] {
    run::SweepText text;
    for (const auto& item : topologies) {
      run::TopologyText name;
      const auto given = topology_argument("sweep", py::reinterpret_borrow<py::object>(item), name);
      if (!given) {
        text.built.push_back({run::load_topology(run::topology_spec(name)), ""});
        continue;
      }
      text.built.push_back({given->copy(), item.cast<const TopologyHandle&>().fabric});
    }
    fill("sweep", options, [&](std::string_view k) -> Slot {
      if (const Slot s = topology_slot(text.generator, k, true); s.text) return s;
      if (const Slot s = algorithm_slot(text.options, k, false); s.text) return s;
      if (k == "ranks") return {&text.ranks, true};
      if (k == "sizes") return {&text.sizes, true};
      if (k == "minbytes") return {&text.minbytes};
      if (k == "maxbytes") return {&text.maxbytes};
      if (k == "stepfactor") return {&text.stepfactor};
      if (k == "stepbytes") return {&text.stepbytes};
      if (k == "collectives") return {&text.collectives, true};
      if (k == "algorithms") return {&text.algorithms, true};
      if (k == "dtype") return {&text.dtype};
      if (k == "network") return {&text.network};
      if (k == "params") return {&text.params, false, true};
      if (k == "nccl_algo") return {&text.nccl_algo};
      if (k == "gpus_per_thread") return {&text.gpus_per_thread};
      if (k == "jobs") return {&text.jobs};
      return {};
    });
    SweepOutput output;
    {
      py::gil_scoped_release release;
      // A Ctrl-C while the sweep is planned (a large topology takes seconds) reaches Python's handler,
      // not run_jobs' (not yet installed): without this check the rows would then run to their end.
      output = run_sweep(std::move(text), [] {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      });
    }
    py::list notices;
    for (const auto& n : output.notices) notices.append(n);
    return py::make_tuple(py::str(output.csv), notices, output.signal);
  });
}

}  // namespace collsim::python
