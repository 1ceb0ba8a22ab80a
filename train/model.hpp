// A model as data-parallel training sees it: its layers in forward order, each with its gradient
// tensors (element counts, in model.parameters() order) and, optionally, its compute times.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/units/units.hpp"

namespace collsim::train {

/// One layer: the unit that backward finishes at once (its gradients are ready together) and that
/// FSDP wraps (one flat parameter per layer).
struct Layer {
  std::string name;
  /// Element counts of its parameter tensors, in model.parameters() order; each >= 1.
  std::vector<std::uint64_t> tensors;
  /// Its own forward / backward compute time; unset: a share of the step's total (spread_times()).
  std::optional<Time> forward;
  std::optional<Time> backward;

  /// The sum of `tensors`.
  [[nodiscard]] std::uint64_t parameters() const;
};

/// A model: a name for reports, where it came from, and its layers in forward order (>= 1).
struct Model {
  std::string name;
  std::string source;  ///< "--parameters/--layers", a file path, or the preset's citation
  std::vector<Layer> layers;

  /// The sum over layers.
  [[nodiscard]] std::uint64_t parameters() const;
  /// The number of tensors over all layers.
  [[nodiscard]] std::size_t tensor_count() const;
};

/// Thrown for a model that cannot be used (a bad count, a malformed file); what() is one line that
/// names the flag or the file and JSON path, what was found and what was expected.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// elements · element_size bytes; throws ModelError when that passes 2^64 - 1.
[[nodiscard]] Bytes checked_bytes(std::uint64_t elements, std::uint32_t element_size);

/// `parameters` elements in `layers` layers of one tensor each, as even as whole elements allow (the
/// first parameters % layers layers one element more). Throws ModelError when layers is 0 or above
/// parameters.
[[nodiscard]] Model model_of_count(std::uint64_t parameters, std::uint32_t layers);

/// A model file's text (`where` names it in errors): either a JSON array of element counts as
/// `[p.numel() for p in model.parameters()]` prints them (each tensor its own layer), or an object
/// {"layers": [{"name": ..., "tensors": [counts], "forward_time": "1ms", "backward_time": "2ms"}]}
/// (name and times optional; a time is a string with its unit, as --backward-time takes it).
/// Throws ModelError naming `where` and the JSON path.
[[nodiscard]] Model model_of_json(std::string_view text, std::string_view where);

/// A public model's parameter count, its layer count, and where both are from.
struct Preset {
  std::string_view name;
  std::uint64_t parameters;
  std::uint32_t layers;
  std::string_view source;
};

/// The presets, by name.
[[nodiscard]] std::span<const Preset> presets();
/// The preset called `name` as a model (model_of_count), nullopt for an unknown name.
[[nodiscard]] std::optional<Model> preset_model(std::string_view name);
/// "resnet50, bert-base, ...", for error messages and help.
[[nodiscard]] std::string preset_names();

/// Gives every layer without its own time a share of `forward_total` / `backward_total` in
/// proportion to its parameters (floor(T · P_upto / P) differences, so the shares sum to T exactly).
/// A total may be given only when no layer has its own time of that kind (ModelError otherwise, naming
/// `forward_flag` / `backward_flag`); with neither, the layers keep theirs or get 0.
void spread_times(Model& model, std::optional<Time> forward_total, std::optional<Time> backward_total,
                  std::string_view forward_flag, std::string_view backward_flag);

}  // namespace collsim::train
