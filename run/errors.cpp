#include "run/errors.hpp"

#include <array>

namespace collsim::run {
namespace {

constexpr char kMark = '\x1d';

constexpr std::array<std::string_view, kFields> kNames{
    "topology", "gpus", "fabric", "link_bandwidth", "link_latency", "nodes", "net_bandwidth", "net_latency",
    "collective", "algorithm", "root", "chunk_size", "ps_shards", "ps_node", "size", "ranks", "dtype", "op", "verify",
    "network", "protocol", "channels", "slice", "params", "model", "max_ops", "schedule", "trace", "save_schedule",
    "log", "output", "resume", "sizes", "algorithms", "collectives", "shard", "jobs", "min_size", "max_size",
    "minbytes", "maxbytes", "stepfactor", "stepbytes", "max_evaluations", "nccl_algo", "shards", "gpus_per_thread", "p2p_level",
    "node", "leaf_nics", "spines", "oversubscription", "planes", "switch_latency", "routing",
    "mode", "parameters", "layers", "tensors", "preset", "bucket_cap", "first_bucket", "forward_time", "backward_time",
};

std::string by_name(Field f) { return std::string(field_name(f)); }

}  // namespace

std::string_view field_name(Field field) noexcept { return kNames[static_cast<std::size_t>(field)]; }

std::string ref(Field field) {
  std::string out(1, kMark);
  out += field_name(field);
  out += kMark;
  return out;
}

std::string render(std::string_view text, FieldSpelling spell) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t end = text[i] == kMark ? text.find(kMark, i + 1) : std::string_view::npos;
    if (end != std::string_view::npos) {
      const std::string_view name = text.substr(i + 1, end - i - 1);
      bool known = false;
      for (std::size_t f = 0; f < kNames.size() && !known; ++f)
        if (kNames[f] == name) {
          out += spell ? spell(static_cast<Field>(f)) : std::string(kNames[f]);
          known = true;
        }
      if (known) {
        i = end + 1;
        continue;
      }
    }
    out += text[i++];  // not a reference: kept as it is (the CLI escapes control bytes)
  }
  return out;
}

RequestError::RequestError(Field field, std::string value, std::string message)
    : std::runtime_error(render(message, by_name)), field_(field), value_(std::move(value)), message_(std::move(message)) {}

OutputError::OutputError(std::string message) : std::runtime_error(render(message, by_name)), message_(std::move(message)) {}

}  // namespace collsim::run
