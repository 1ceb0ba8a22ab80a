// What the module's functions run: each parses its keywords into a request's text with the GIL
// held, then releases the GIL while the library layer (run/) simulates, and returns the document
// the command line prints for the same request, for collsim/__init__.py to read.
#pragma once

#include <string>

#include <pybind11/pybind11.h>

namespace collsim::python {

namespace py = pybind11;

/// `collsim simulate --format json`'s document (reports::render_json) for `topology` (None, a str
/// or a TopologyHandle) and the keywords in `options`.
[[nodiscard]] std::string simulate(const py::object& topology, const py::dict& options);

/// A sweep of `topologies` (str or TopologyHandle each; empty: the generator keywords or the bundled
/// default) with the keywords in `options`: (the CSV `collsim sweep` prints, the notices it prints
/// on stderr without "collsim: ", the signal that stopped it or 0).
[[nodiscard]] py::tuple sweep(const py::list& topologies, const py::dict& options);

/// `collsim compare LOG --format json`'s document (reports::render_compare_json) and the warnings
/// about rows that could not be predicted: (document, [warning, ...]).
[[nodiscard]] py::tuple compare(const py::object& log, const py::object& topology, const py::dict& options);

/// `collsim train --format json`'s document (train::render_json) for `topology` and the keywords in
/// `options` (train/train_text.hpp's fields).
[[nodiscard]] std::string train(const py::object& topology, const py::dict& options);

/// `collsim algorithms --format json`'s document.
[[nodiscard]] std::string algorithms();

}  // namespace collsim::python
