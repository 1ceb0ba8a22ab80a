#include "train/model.hpp"

#include <array>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/units/int128.hpp"
#include "sim/units/units.hpp"

namespace collsim::train {
namespace {

using nlohmann::json;

// The presets' parameter counts, each as its source gives it. Layers are the model's repeated blocks
// (what FSDP's auto-wrap policy wraps); the count is spread evenly over them, a simplification that
// a tensor list (--tensors) replaces.
constexpr std::array kPresets{
    Preset{"resnet50", 25'557'032, 50,
           "torchvision ResNet50_Weights.IMAGENET1K_V1, num_params 25557032 (He et al. 2016, 50 layers)"},
    Preset{"bert-base", 109'482'240, 12,
           "Hugging Face bert-base-uncased, num_parameters() 109482240 (Devlin et al. 2019: 110M, 12 layers)"},
    Preset{"gpt2", 124'439'808, 12, "Hugging Face gpt2, num_parameters() 124439808 (Radford et al. 2019: 12 layers)"},
    Preset{"llama2-7b", 6'738'415'616, 32,
           "Hugging Face meta-llama/Llama-2-7b-hf, num_parameters() 6738415616 (Touvron et al. 2023: 32 layers)"},
    Preset{"gpt3-175b", 175'000'000'000, 96, "Brown et al. 2020, Table 2.1: 175.0B parameters, 96 layers (rounded)"},
};

std::string type_of(const json& j) { return j.type_name(); }

// A count of elements at `path`: a whole number >= 1.
std::uint64_t element_count(const json& j, std::string_view where, const std::string& path) {
  if (!j.is_number_unsigned() || j.get<std::uint64_t>() == 0)
    throw ModelError(fmt::format("{}: {}: found {}, expected a whole number of elements >= 1", where, path,
                                 j.is_number() ? j.dump() : type_of(j)));
  return j.get<std::uint64_t>();
}

std::optional<Time> time_field(const json& layer, const char* key, std::string_view where, const std::string& path) {
  const auto it = layer.find(key);
  if (it == layer.end()) return std::nullopt;
  const std::string at = fmt::format("{}/{}", path, key);
  if (!it->is_string())
    throw ModelError(fmt::format("{}: {}: found {}, expected a time with its unit, e.g. \"1.5ms\"", where, at, it->dump()));
  try {
    return parse_latency(it->get<std::string>());
  } catch (const UnitError& e) {
    throw ModelError(fmt::format("{}: {}: {}", where, at, e.what()));
  }
}

Layer layer_of_object(const json& j, std::size_t index, std::string_view where) {
  const std::string path = fmt::format("/layers/{}", index);
  if (!j.is_object()) throw ModelError(fmt::format("{}: {}: found {}, expected an object", where, path, type_of(j)));
  for (const auto& [key, value] : j.items())
    if (key != "name" && key != "tensors" && key != "forward_time" && key != "backward_time")
      throw ModelError(fmt::format("{}: {}/{}: unknown key, expected name, tensors, forward_time or backward_time",
                                   where, path, key));
  Layer layer;
  layer.name = fmt::format("layer{}", index);
  if (const auto it = j.find("name"); it != j.end()) {
    if (!it->is_string()) throw ModelError(fmt::format("{}: {}/name: found {}, expected a string", where, path, it->dump()));
    layer.name = it->get<std::string>();
  }
  const auto tensors = j.find("tensors");
  if (tensors == j.end() || !tensors->is_array() || tensors->empty())
    throw ModelError(fmt::format("{}: {}/tensors: {}, expected a non-empty array of element counts", where, path,
                                 tensors == j.end() ? std::string("missing") : "found " + tensors->dump()));
  for (std::size_t t = 0; t < tensors->size(); ++t)
    layer.tensors.push_back(element_count((*tensors)[t], where, fmt::format("{}/tensors/{}", path, t)));
  layer.forward = time_field(j, "forward_time", where, path);
  layer.backward = time_field(j, "backward_time", where, path);
  return layer;
}

// The element counts must sum below 2^64, so that every total of the model is exact.
void check_total(const Model& m, std::string_view where) {
  std::uint64_t sum = 0;
  for (const Layer& l : m.layers)
    for (std::uint64_t t : l.tensors)
      if (__builtin_add_overflow(sum, t, &sum))
        throw ModelError(fmt::format("{}: the element counts sum past 2^64 - 1; expected a model that fits", where));
}

// floor(total · upto / all) in picoseconds, exact (128 bits).
Time share(Time total, std::uint64_t upto, std::uint64_t all) {
  return Time{static_cast<std::int64_t>(static_cast<u128>(total.count()) * upto / all)};
}

}  // namespace

std::uint64_t Layer::parameters() const { return std::accumulate(tensors.begin(), tensors.end(), std::uint64_t{0}); }

std::uint64_t Model::parameters() const {
  std::uint64_t p = 0;
  for (const Layer& l : layers) p += l.parameters();
  return p;
}

std::size_t Model::tensor_count() const {
  std::size_t n = 0;
  for (const Layer& l : layers) n += l.tensors.size();
  return n;
}

Bytes checked_bytes(std::uint64_t elements, std::uint32_t element_size) {
  Bytes b = 0;
  if (__builtin_mul_overflow(elements, std::uint64_t{element_size}, &b))
    throw ModelError(fmt::format("{} elements of {} bytes: more than 2^64 bytes, expected a model that fits", elements,
                                 element_size));
  return b;
}

Model model_of_count(std::uint64_t parameters, std::uint32_t layers) {
  if (layers == 0 || layers > parameters)
    throw ModelError(fmt::format("found {}, expected 1 to {} (at least one parameter per layer)", layers, parameters));
  Model m;
  m.name = format_count(parameters, "parameter");
  m.source = "--parameters/--layers";
  for (std::uint32_t i = 0; i < layers; ++i) {
    Layer l;
    l.name = fmt::format("layer{}", i);
    l.tensors.push_back(parameters / layers + (i < parameters % layers ? 1 : 0));
    m.layers.push_back(std::move(l));
  }
  return m;
}

Model model_of_json(std::string_view text, std::string_view where) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw ModelError(fmt::format("{}: not JSON ({}); expected an array of element counts or {{\"layers\": [...]}}",
                                 where, e.what()));
  }
  Model m;
  m.name = std::string(where);
  m.source = std::string(where);
  if (j.is_array()) {
    if (j.empty()) throw ModelError(fmt::format("{}: found an empty array, expected at least one element count", where));
    for (std::size_t i = 0; i < j.size(); ++i) {
      Layer l;
      l.name = fmt::format("tensor{}", i);
      l.tensors.push_back(element_count(j[i], where, fmt::format("/{}", i)));
      m.layers.push_back(std::move(l));
    }
    check_total(m, where);
    return m;
  }
  if (!j.is_object())
    throw ModelError(fmt::format("{}: found {}, expected an array of element counts or {{\"layers\": [...]}}", where,
                                 type_of(j)));
  for (const auto& [key, value] : j.items())
    if (key != "layers" && key != "name")
      throw ModelError(fmt::format("{}: /{}: unknown key, expected layers or name", where, key));
  if (const auto it = j.find("name"); it != j.end()) {
    if (!it->is_string()) throw ModelError(fmt::format("{}: /name: found {}, expected a string", where, it->dump()));
    m.name = it->get<std::string>();
  }
  const auto layers = j.find("layers");
  if (layers == j.end() || !layers->is_array() || layers->empty())
    throw ModelError(fmt::format("{}: /layers: {}, expected a non-empty array of layers", where,
                                 layers == j.end() ? std::string("missing") : "found " + layers->dump()));
  for (std::size_t i = 0; i < layers->size(); ++i) m.layers.push_back(layer_of_object((*layers)[i], i, where));
  check_total(m, where);
  return m;
}

std::span<const Preset> presets() { return kPresets; }

std::optional<Model> preset_model(std::string_view name) {
  for (const Preset& p : kPresets)
    if (p.name == name) {
      Model m = model_of_count(p.parameters, p.layers);
      m.name = std::string(p.name);
      m.source = std::string(p.source);
      return m;
    }
  return std::nullopt;
}

std::string preset_names() {
  std::string s;
  for (const Preset& p : kPresets) s += (s.empty() ? "" : ", ") + std::string(p.name);
  return s;
}

void spread_times(Model& model, std::optional<Time> forward_total, std::optional<Time> backward_total,
                  std::string_view forward_flag, std::string_view backward_flag) {
  const auto spread = [&](std::optional<Time> total, std::optional<Time> Layer::*field, std::string_view flag) {
    for (const Layer& l : model.layers)
      if (total && l.*field)
        throw ModelError(fmt::format("{}: not allowed with a model file whose layers give their own times (layer "
                                     "\"{}\"); expected one or the other",
                                     flag, l.name));
    const Time t = total.value_or(Time{0});
    const std::uint64_t all = model.parameters();
    std::uint64_t upto = 0;
    for (Layer& l : model.layers) {
      const Time before = share(t, upto, all);
      upto += l.parameters();
      if (!(l.*field)) l.*field = share(t, upto, all) - before;
    }
  };
  spread(forward_total, &Layer::forward, forward_flag);
  spread(backward_total, &Layer::backward, backward_flag);
}

}  // namespace collsim::train
