#include "train/train_text.hpp"

#include <fmt/format.h>

#include "run/lists.hpp"
#include "run/parse.hpp"
#include "sim/io/text_file.hpp"

namespace collsim::train {
namespace {

using run::Field;
using run::ref;
using run::RequestError;

// A step holds a few spans per layer; past a million layers it would need gigabytes for no model
// that exists (GPT-3 has 96).
constexpr std::uint32_t kMaxLayers = 1u << 20;
// A model file lists one number per tensor: a million tensors take about 10 MB of JSON. Past 64 MiB
// it is not a model file (or is /dev/zero), and is refused before it fills memory.
constexpr std::uint64_t kMaxModelFileBytes = std::uint64_t{64} << 20;

Mode parse_mode(std::string_view text) {
  if (text == "ddp") return Mode::Ddp;
  if (text == "fsdp") return Mode::Fsdp;
  throw RequestError(Field::Mode, std::string(text),
                     fmt::format("{}: found \"{}\", expected ddp or fsdp", ref(Field::Mode), text));
}

std::uint64_t parse_parameters(std::string_view text) {
  const auto v = run::whole_number(text);
  if (!v || *v == 0)
    throw RequestError(Field::Parameters, std::string(text),
                       fmt::format("{}: found \"{}\", expected a whole number of parameters >= 1, e.g. 124439808",
                                   ref(Field::Parameters), text));
  return *v;
}

Model model_of(const TrainText& t) {
  const int sources = !t.preset.empty() + !t.tensors.empty() + !t.parameters.empty();
  if (sources != 1)
    throw RequestError(sources == 0 ? Field::Parameters : !t.preset.empty() ? Field::Preset : Field::Tensors, "",
                       fmt::format("{}, {} or {}: {}; expected exactly one model", ref(Field::Preset), ref(Field::Tensors),
                                   ref(Field::Parameters), sources == 0 ? "none given" : "more than one given"));
  if (!t.layers.empty() && t.parameters.empty())
    throw RequestError(Field::Layers, t.layers,
                       fmt::format("{}: only used with {}", ref(Field::Layers), ref(Field::Parameters)));
  if (!t.preset.empty()) {
    if (auto m = preset_model(t.preset)) return std::move(*m);
    throw RequestError(Field::Preset, t.preset,
                       fmt::format("{}: found \"{}\", expected {}", ref(Field::Preset), t.preset, preset_names()));
  }
  if (!t.tensors.empty()) {
    std::string text;
    try {
      text = io::read_text_file(t.tensors, "a model file (JSON)", kMaxModelFileBytes);
      return model_of_json(text, t.tensors);
    } catch (const io::FileReadError& e) {
      throw RequestError(Field::Tensors, t.tensors, fmt::format("{}: {}", ref(Field::Tensors), e.what()));
    } catch (const ModelError& e) {
      throw RequestError(Field::Tensors, t.tensors, fmt::format("{}: {}", ref(Field::Tensors), e.what()));
    }
  }
  const std::uint64_t p = parse_parameters(t.parameters);
  const std::uint32_t layers =
      t.layers.empty() ? 1 : run::parse_count(Field::Layers, t.layers, 1, kMaxLayers);
  try {
    return model_of_count(p, layers);
  } catch (const ModelError& e) {
    throw RequestError(Field::Layers, t.layers, fmt::format("{}: {}", ref(Field::Layers), e.what()));
  }
}

std::optional<Time> optional_time(Field f, const std::string& text) {
  if (text.empty()) return std::nullopt;
  return run::parse_latency(f, text);
}

std::vector<Bytes> parse_caps(const std::string& text) {
  std::vector<Bytes> caps;
  for (const std::string& item : run::split_list(Field::BucketCap, text)) {
    const Bytes b = run::parse_size(Field::BucketCap, item);
    if (b == 0)
      throw RequestError(Field::BucketCap, item, fmt::format("{}: found 0, expected at least 1 byte", ref(Field::BucketCap)));
    if (std::find(caps.begin(), caps.end(), b) == caps.end()) caps.push_back(b);
  }
  return caps;
}

}  // namespace

TrainRequest train_request(const TrainText& t) {
  TrainRequest r;
  r.mode = parse_mode(t.mode);
  r.model = model_of(t);
  r.dtype = t.dtype.empty() ? validation::DType::Float32 : run::parse_dtype(t.dtype);
  // Every size below (a layer, a bucket) is at most the model's bytes, so one check covers them.
  try {
    (void)checked_bytes(r.model.parameters(), validation::dtype_size(r.dtype));
  } catch (const ModelError& e) {
    const Field f = !t.preset.empty() ? Field::Preset : !t.tensors.empty() ? Field::Tensors : Field::Parameters;
    throw RequestError(f, "", fmt::format("{}: {}", ref(f), e.what()));
  }
  const auto forward = optional_time(Field::ForwardTime, t.forward_time);
  const auto backward = optional_time(Field::BackwardTime, t.backward_time);
  try {
    spread_times(r.model, forward, backward, ref(Field::ForwardTime), ref(Field::BackwardTime));
  } catch (const ModelError& e) {
    throw RequestError(forward ? Field::ForwardTime : Field::BackwardTime, "", e.what());
  }
  if (r.mode == Mode::Fsdp)
    for (const auto& [field, text] : {std::pair{Field::BucketCap, &t.bucket_cap}, std::pair{Field::FirstBucket, &t.first_bucket}})
      if (!text->empty())
        throw RequestError(field, *text,
                           fmt::format("{}: DDP's gradient buckets; not used by {} fsdp", ref(field), ref(Field::Mode)));
  if (!t.bucket_cap.empty()) {
    r.bucket_caps = parse_caps(t.bucket_cap);
    r.bucket_caps_given = true;
  }
  if (!t.first_bucket.empty()) {
    r.first_bucket = run::parse_size(Field::FirstBucket, t.first_bucket);
    if (*r.first_bucket == 0)
      throw RequestError(Field::FirstBucket, t.first_bucket,
                         fmt::format("{}: found 0, expected at least 1 byte", ref(Field::FirstBucket)));
  }
  if (!t.ranks.empty()) r.ranks = run::parse_count_list(Field::Ranks, t.ranks, 1, 1u << 20);
  r.algorithm = t.algorithm;
  r.options = run::algorithm_options(t.options);
  r.model_options = run::model_options(t.model);
  r.topology = run::topology_spec(t.topology);
  r.network = t.network;
  return r;
}

}  // namespace collsim::train
