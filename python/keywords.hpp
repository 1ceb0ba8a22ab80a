// The module's keyword arguments turned into the text of a request (run/text_request.hpp,
// run/sweep_text.hpp), as the command line would have given it: an int is written in decimal, a
// str kept as it is, a list joined by commas, so that the library layer parses both front ends'
// values with the same parsers and the same errors.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <pybind11/pybind11.h>

#include "run/text_request.hpp"

namespace collsim::python {

namespace py = pybind11;

/// Where the value of a keyword goes.
struct Slot {
  std::string* text = nullptr;  ///< the request text it sets (null: the keyword is unknown)
  bool list = false;            ///< a list (or tuple) of items is allowed, joined by commas
  bool path = false;            ///< a file: a str or an os.PathLike, not an int
  bool* flag = nullptr;         ///< instead of text: a bool (verify)
};

/// The generator keywords (gpus, fabric, link_bandwidth, link_latency, nodes, net_bandwidth,
/// net_latency) of `t`; gpus takes a list when `gpus_list` (a sweep's family). An empty slot for
/// any other keyword.
[[nodiscard]] Slot topology_slot(run::TopologyText& t, std::string_view keyword, bool gpus_list = false);
/// root, chunk_size, ps_shards and, when `with_ps_node`, ps_node (a list allowed).
[[nodiscard]] Slot algorithm_slot(run::AlgorithmText& t, std::string_view keyword, bool with_ps_node = true);
/// protocol, channels, slice, params (a path), max_ops and, when `with_model`, model.
[[nodiscard]] Slot model_slot(run::ModelText& t, std::string_view keyword, bool with_model = true);

/// Sets the slot (`slot_of(keyword)`) of every keyword of `options`; a value of None is "not
/// given". Throws TypeError naming `function` for a keyword without a slot ("simulate() got an
/// unexpected keyword argument 'x'") or a value of a type the slot does not take, and
/// run::RequestError for an empty str or list (as the command line refuses an empty value).
void fill(std::string_view function, const py::dict& options, const std::function<Slot(std::string_view)>& slot_of);

}  // namespace collsim::python
