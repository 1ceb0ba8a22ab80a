// The schedule IR: what a collective algorithm does, as data, independent of topology and time.
//
// Every rank holds a buffer cut into chunks (byte ranges, the same cut on every rank). An op moves
// one chunk from one rank to another and either reduces it into the receiver's chunk or overwrites
// it. Ops carry their logical step (so step counts are exact), a channel hint, and dependencies
// that come from data flow (see builder.hpp). The same schedule can be simulated on any topology,
// replayed on buffers, and explained step by step (DESIGN.md, "The schedule IR").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/schedule/collective.hpp"
#include "sim/units/units.hpp"

namespace collsim::sched {

/// A logical rank: 0 .. nranks-1 are the collective's participants (on GPUs); nranks ..
/// nranks+helpers-1 are helpers that hold no input and owe no output (a parameter server on a CPU).
using Rank = std::uint32_t;
/// Index of an op in Schedule::ops.
using OpId = std::uint32_t;
/// Index of a chunk in Schedule::chunks.
using ChunkId = std::uint32_t;

/// Which buffer of a rank a chunk lies in.
/// Data: the collective's buffer (input, and output for every collective but all-to-all);
/// Output: all-to-all's receive buffer; Scratch: temporary space (receive slots of a server).
enum class Buffer : std::uint8_t { Data, Output, Scratch };

/// A byte range [offset, offset + size) of one buffer, the same on every rank. `part` is the rank
/// whose share of the buffer holds it: the collective's S is cut into N parts with split_even (the
/// all-gather input of rank `part`, the reduce-scatter output of rank `part`, the all-to-all block
/// for or from rank `part`); it is unused by all-reduce, broadcast and reduce.
struct Chunk {
  Bytes offset = 0;
  Bytes size = 0;
  Buffer buffer = Buffer::Data;
  Rank part = 0;
  friend bool operator==(const Chunk&, const Chunk&) = default;
};

/// What the receiver does with the data: overwrite its chunk, or add the data into it.
enum class Combine : std::uint8_t { Copy, Reduce };

/// One op: rank `src` reads its chunk `src_chunk` and rank `dst` copies or reduces it into its
/// chunk `dst_chunk` (both chunks have the same size). src != dst is a transfer over the network;
/// src == dst is a local op on one rank (e.g. a server adding a received buffer into its sum).
struct Op {
  Rank src = 0;
  Rank dst = 0;
  ChunkId src_chunk = 0;
  ChunkId dst_chunk = 0;
  Combine combine = Combine::Copy;
  std::uint32_t step = 1;     ///< logical step, 1-based
  std::uint16_t channel = 0;  ///< parallel ring/tree this op belongs to (NCCL's channel)
  friend bool operator==(const Op&, const Op&) = default;
};

/// A named range of steps, for people: "reduce-scatter" is steps 1..N-1 of ring all-reduce.
struct Phase {
  std::string name;
  std::uint32_t first_step = 1;
  std::uint32_t last_step = 1;
  friend bool operator==(const Phase&, const Phase&) = default;
};

/// What a schedule is for: the collective, N participants, S, the root (broadcast, reduce), the
/// number of helper ranks after the participants, and the unit S is cut in.
struct ScheduleHeader {
  Collective collective = Collective::AllReduce;
  Rank nranks = 1;        ///< participants
  Bytes size = 0;         ///< S, as nccl-tests defines it for the collective
  Rank root = 0;          ///< broadcast and reduce
  Rank helpers = 0;       ///< extra ranks after the participants (see Rank)
  /// The unit the N parts of S are counted in (split_even): the element size of the data type it
  /// was built for (4 for float32). A Schedule stores cut_unit(size, element_size): 1 when S is not
  /// a multiple of it (or for bytes).
  Bytes element_size = 1;
  friend bool operator==(const ScheduleHeader&, const ScheduleHeader&) = default;
};

/// An immutable, validated schedule. Ops are in a topological order: every dependency of op i
/// has an id below i. Built only through ScheduleBuilder (a schedule file with explicit
/// dependencies then replaces them through set_deps, explicit_deps.hpp, once they are checked).
struct Schedule {
  std::string algorithm;       ///< registry name of the algorithm that made it
  ScheduleHeader header;       ///< collective, N, S, root, helpers, element size
  std::uint32_t steps = 0;     ///< the largest op step (0 when there are no ops)
  std::vector<Chunk> chunks;
  std::vector<Phase> phases;   ///< optional names of step ranges, ascending
  std::vector<Op> ops;
  std::vector<std::uint32_t> dep_offsets;  ///< CSR: deps of op i are deps[dep_offsets[i] .. dep_offsets[i+1])
  std::vector<OpId> deps;

  /// Field by field: the same ops with the same dependencies, chunks, phases and header.
  friend bool operator==(const Schedule&, const Schedule&) = default;

  /// The ops that must finish before op `id` starts, ascending.
  [[nodiscard]] std::span<const OpId> deps_of(OpId id) const {
    return std::span<const OpId>(deps).subspan(dep_offsets[id], dep_offsets[id + 1] - dep_offsets[id]);
  }
  /// Participants and helpers.
  [[nodiscard]] Rank total_ranks() const noexcept { return header.nranks + header.helpers; }
  /// The name of the phase that holds `step`, or "" when none does.
  [[nodiscard]] std::string_view phase_of(std::uint32_t step) const {
    for (const auto& p : phases)
      if (step >= p.first_step && step <= p.last_step) return p.name;
    return {};
  }
  /// Bytes moved by op `id`.
  [[nodiscard]] Bytes op_bytes(OpId id) const { return chunks[ops[id].src_chunk].size; }
};

/// Bytes each rank (participants then helpers) sends over the network: the sizes of its ops with
/// src != dst; local ops move nothing.
std::vector<Bytes> bytes_sent_per_rank(const Schedule& schedule);
/// Bytes each rank receives over the network.
std::vector<Bytes> bytes_received_per_rank(const Schedule& schedule);
/// The largest of bytes_sent_per_rank (0 for no ranks).
Bytes max_bytes_sent(const Schedule& schedule);

/// Cuts `total` bytes into `parts` contiguous chunks (chunk i has part = i) of whole elements of
/// `element_size` bytes, as NCCL counts a buffer in elements: with E = total / element_size
/// elements, the first E mod parts chunks have ceil(E/parts) elements, the rest floor(E/parts)
/// (so chunks may be empty when E < parts). When total is not a multiple of element_size (or it is
/// 1) the same rule applies to bytes. Preconditions: parts >= 1, element_size >= 1.
std::vector<Chunk> split_even(Bytes total, std::uint32_t parts, Bytes element_size = 1);

/// The unit split_even really cuts `total` in: element_size when total is a multiple of it, else 1.
constexpr Bytes cut_unit(Bytes total, Bytes element_size) noexcept {
  return element_size > 1 && total % element_size == 0 ? element_size : 1;
}

}  // namespace collsim::sched
