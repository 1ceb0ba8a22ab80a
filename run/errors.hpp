// The library layer's errors: a request field at fault, the value found there, and a one-line
// message. Messages refer to fields, never to a front end's spelling of them (a CLI flag, a Python
// keyword): each front end renders the references its own way (render()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace collsim::run {

/// A field of a request (SimulationRequest, SweepRequest, LogRequest ...). Its name is the
/// request's snake_case key, also the Python keyword; the CLI spells it as a flag (tools/).
enum class Field : std::uint8_t {
  Topology, Gpus, Fabric, LinkBandwidth, LinkLatency, Nodes, NetBandwidth, NetLatency,
  Collective, Algorithm, Root, ChunkSize, PsShards, PsNode, Size, Ranks, Dtype, Op, Verify,
  Network, Protocol, Channels, Slice, Params, Model, MaxOps, Schedule, Trace, SaveSchedule,
  Log, Output, Resume, Sizes, Algorithms, Collectives, Shard, Jobs, MinSize, MaxSize, MinBytes, MaxBytes,
  StepFactor, StepBytes, MaxEvaluations, NcclAlgo, Shards, GpusPerThread, P2pLevel,
  Node, LeafNics, Spines, Oversubscription, Planes, SwitchLatency, Routing,
  Mode, Parameters, Layers, Tensors, Preset, BucketCap, FirstBucket, ForwardTime, BackwardTime,
};
/// How many fields there are (BackwardTime is the last).
inline constexpr std::size_t kFields = static_cast<std::size_t>(Field::BackwardTime) + 1;

/// The snake_case name of `field` ("chunk_size"), as requests and Python keywords spell it.
[[nodiscard]] std::string_view field_name(Field field) noexcept;

/// A reference to `field` inside an error message, rendered by the front end (render()). It is
/// the field's name between two U+001D (group separator) bytes, which no message text carries.
[[nodiscard]] std::string ref(Field field);

/// How a front end spells a field in its messages (the CLI: "--chunk-size").
using FieldSpelling = std::string (*)(Field);

/// `text` with every ref() replaced by `spell(field)` (null: the field's name); other bytes unchanged.
[[nodiscard]] std::string render(std::string_view text, FieldSpelling spell);

/// A request the layer cannot run: `field` holds `value` (as found; "" when missing), and the
/// message, with its field references (ref()), says what was expected. what() renders the
/// references as field names; front ends call rendered() with their own spelling.
class RequestError : public std::runtime_error {
 public:
  /// `message` is the whole one-line message, references included, e.g.
  /// ref(Field::Channels) + ": found 3, but allgather ...".
  RequestError(Field field, std::string value, std::string message);
  [[nodiscard]] Field field() const noexcept { return field_; }
  [[nodiscard]] const std::string& value() const noexcept { return value_; }
  /// The message with references spelled by `spell`.
  [[nodiscard]] std::string rendered(FieldSpelling spell) const { return render(message_, spell); }
  /// The message with its references (ref()) in place, for a front end to render later.
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

 private:
  Field field_;
  std::string value_;
  std::string message_;
};

/// An output file or stream could not be written (the CLI's exit 74); what() names it and the
/// reason, with field references (ref()) where a field named the file.
class OutputError : public std::runtime_error {
 public:
  explicit OutputError(std::string message);
  [[nodiscard]] std::string rendered(FieldSpelling spell) const { return render(message_, spell); }

 private:
  std::string message_;
};

}  // namespace collsim::run
