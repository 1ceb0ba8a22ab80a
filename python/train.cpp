#include "python/calls.hpp"
#include "python/interruptible.hpp"
#include "python/keywords.hpp"
#include "python/raise_error.hpp"
#include "python/topology_handle.hpp"
#include "train/train_report.hpp"
#include "train/train_text.hpp"

namespace collsim::python {

std::string train(const py::object& topology, const py::dict& options) {
  return translating([&] {
    train::TrainText text;
    const auto given = topology_argument("train", topology, text.topology);
    fill("train", options, [&](std::string_view k) -> Slot {
      if (const Slot s = topology_slot(text.topology, k); s.text) return s;
      if (const Slot s = model_slot(text.model, k, false); s.text) return s;
      if (k == "mode") return {&text.mode};
      if (k == "preset") return {&text.preset};
      if (k == "tensors") return {&text.tensors, false, true};
      if (k == "parameters") return {&text.parameters};
      if (k == "layers") return {&text.layers};
      if (k == "dtype") return {&text.dtype};
      if (k == "forward_time") return {&text.forward_time};
      if (k == "backward_time") return {&text.backward_time};
      if (k == "bucket_cap") return {&text.bucket_cap, true};
      if (k == "first_bucket") return {&text.first_bucket};
      if (k == "ranks") return {&text.ranks, true};
      if (k == "algorithm") return {&text.algorithm};
      if (k == "chunk_size") return {&text.options.chunk_size};
      if (k == "network") return {&text.network};
      return {};
    });
    train::TrainRequest request = train::train_request(text);
    if (given) request.topology.given = given;
    // Without the GIL, on a thread of its own (python/interruptible.hpp); a step's collectives are
    // short runs each, so Ctrl-C is seen once the current one ends.
    return interruptible([&](const std::atomic<bool>*) { return train::render_json(train::run_train(request)); });
  });
}

}  // namespace collsim::python
