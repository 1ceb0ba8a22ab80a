#include "python/keywords.hpp"

#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "run/errors.hpp"
#include "run/option_names.hpp"

namespace collsim::python {
namespace {

[[noreturn]] void wrong_type(std::string_view function, std::string_view keyword, const Slot& slot,
                             const py::handle& value) {
  const std::string expected = slot.flag   ? "a bool"
                               : slot.list ? "an int, a str or a list of them"
                               : slot.path ? "a str or an os.PathLike"
                                           : "an int or a str";
  // A float is the common slip (forward_time=0.03, size=1e9): the command line's values carry their
  // unit, so say how to write one rather than only that a float is not taken.
  const std::string hint = !slot.flag && !slot.path && py::isinstance<py::float_>(value)
                               ? "; a number with a unit is a str, such as \"30ms\", \"1G\" or \"25GB/s\""
                               : "";
  throw py::type_error(fmt::format("{}(): {} must be {}, not {}{}", function, keyword, expected,
                                   py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>(), hint));
}

// "--size: found an empty value, expected one", as the command line says it.
[[noreturn]] void empty_value(std::string_view keyword) {
  const auto field = run::field_of_keyword(keyword);
  if (!field) throw std::logic_error(fmt::format("keyword {} is not a request field", keyword));
  throw run::RequestError(*field, "", fmt::format("{}: found an empty value, expected one", run::ref(*field)));
}

// One item's text: an int (or an object with __index__, such as numpy's integers) in decimal, a
// str as it is, an os.PathLike's path where the slot takes one; nullopt for another type.
std::optional<std::string> item_text(const py::handle& value, const Slot& slot) {
  if (py::isinstance<py::bool_>(value)) return std::nullopt;  // an int to Python, a mistake here
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (!slot.path && PyIndex_Check(value.ptr()) != 0) {  // a file is named, never numbered
    const auto number = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
    if (!number) throw py::error_already_set();
    return py::str(number).cast<std::string>();
  }
  if (slot.path && py::hasattr(value, "__fspath__")) {
    const py::object path = py::module_::import("os").attr("fspath")(value);
    if (py::isinstance<py::str>(path)) return path.cast<std::string>();
  }
  return std::nullopt;
}

}  // namespace

Slot topology_slot(run::TopologyText& t, std::string_view k, bool gpus_list) {
  if (k == "gpus") return {&t.gpus, gpus_list};
  if (k == "fabric") return {&t.fabric};
  if (k == "link_bandwidth") return {&t.link_bandwidth};
  if (k == "link_latency") return {&t.link_latency};
  if (k == "nodes") return {&t.nodes};
  if (k == "net_bandwidth") return {&t.net_bandwidth};
  if (k == "net_latency") return {&t.net_latency};
  if (k == "p2p_level") return {&t.p2p_level};
  if (k == "routing") return {&t.routing};
  if (k == "node") return {&t.node, false, true};
  if (k == "leaf_nics") return {&t.leaf_nics};
  if (k == "spines") return {&t.spines};
  if (k == "oversubscription") return {&t.oversubscription};
  if (k == "planes") return {&t.planes};
  if (k == "switch_latency") return {&t.switch_latency};
  return {};
}

Slot algorithm_slot(run::AlgorithmText& t, std::string_view k, bool with_ps_node) {
  if (k == "root") return {&t.root};
  if (k == "chunk_size") return {&t.chunk_size};
  if (k == "ps_shards") return {&t.ps_shards};
  if (k == "ps_node" && with_ps_node) return {&t.ps_node, true};
  return {};
}

Slot model_slot(run::ModelText& t, std::string_view k, bool with_model) {
  if (k == "protocol") return {&t.protocol};
  if (k == "channels") return {&t.channels};
  if (k == "slice") return {&t.slice};
  if (k == "params") return {&t.params, false, true};
  if (k == "max_ops") return {&t.max_ops};
  if (k == "nccl_algo") return {&t.nccl_algo};
  if (k == "gpus_per_thread") return {&t.gpus_per_thread};
  if (k == "model" && with_model) return {&t.model};
  return {};
}

void fill(std::string_view function, const py::dict& options, const std::function<Slot(std::string_view)>& slot_of) {
  for (const auto& [key, value] : options) {
    const std::string keyword = py::str(key);
    const Slot slot = slot_of(keyword);
    if (slot.text == nullptr && slot.flag == nullptr)
      throw py::type_error(fmt::format("{}() got an unexpected keyword argument '{}'", function, keyword));
    if (value.is_none()) continue;
    if (slot.flag != nullptr) {
      if (!py::isinstance<py::bool_>(value)) wrong_type(function, keyword, slot, value);
      *slot.flag = value.cast<bool>();
      continue;
    }
    std::string text;
    if (slot.list && (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value))) {
      for (const auto& item : value) {
        const auto t = item_text(item, slot);
        if (!t) wrong_type(function, keyword, slot, item);
        if (t->empty()) empty_value(keyword);
        text += (text.empty() ? "" : ",") + *t;
      }
    } else {
      const auto t = item_text(value, slot);
      if (!t) wrong_type(function, keyword, slot, value);
      text = *t;
    }
    if (text.empty()) empty_value(keyword);
    *slot.text = text;
  }
}

}  // namespace collsim::python
