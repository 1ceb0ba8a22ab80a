// CPU replay: executes a schedule on per-rank buffers of real numbers and compares every buffer
// the collective defines with the collective computed directly (issue 3, point 5).
//
// What "computed directly" means comes from sim/schedule/collective_spec.hpp: the required content
// of a (rank, chunk) slot is a multiset of (rank q, data chunk d) contributions, so its expected
// value at element k of the chunk is the reduction, over those contributions, of rank q's input at
// element k of chunk d. That one rule covers all six collectives and every algorithm, including
// helper ranks (a parameter server outside the GPUs), scratch chunks and all-to-all output buffers.
//
// Buffers: every rank (participants and helpers) has one slot per chunk of the schedule's table,
// allocated only when it is defined at the start or written by an op (the data buffer holds
// S bytes, S' = N·floor(S/N) for all-to-all, see effective_size(); all-to-all's output buffer and
// each scratch chunk likewise). Ops run in a topological order of their dependencies
// (replay_order.hpp). An op that reads an undefined slot, or reduces into one, is an error.
//
// Element type: the requested dtype when every chunk starts and ends on a multiple of its size;
// otherwise (S or a chunk boundary not a multiple of it) uint8, sum modulo 256, which every size
// allows (the report's note says so). Input values: input_pattern.hpp.
//
// Coverage: a full replay of every element when S' <= 16 MiB (and all slots together fit the
// memory limit); above that only the first and last element of every chunk are replayed (so memory
// is two elements per slot, whatever S), and the symbolic replay (symbolic_replay.hpp) checks which
// contributions every slot holds (skipped, with a note, when its O(ranks · chunks · N) contents
// would not fit the memory limit).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/schedule/schedule.hpp"
#include "validation/dtype.hpp"
#include "validation/replay_order.hpp"

namespace collsim::validation {

/// How to replay.
struct ReplayOptions {
  DType dtype = DType::Float32;  ///< element type asked for (uint8 is used where it cannot be cut)
  ReduceOp op = ReduceOp::Sum;   ///< what Combine::Reduce does
  /// Largest S' (bytes of the data buffer per rank) replayed element by element; above it, sampled.
  Bytes full_replay_limit = Bytes{16} << 20;
  /// Largest total of all allocated slots (all ranks, scratch included) a full replay may use;
  /// above it the replay is sampled (e.g. a server holding N receive buffers of 16 MiB).
  /// The symbolic replay of a sampled run is skipped when its contents could exceed it too.
  Bytes memory_limit = Bytes{2} << 30;
  ReplayOrder order = ReplayOrder::LatestReadyFirst;  ///< see replay_order.hpp
};

/// Whether every element was replayed, or the first and last of every chunk (plus the symbolic replay).
enum class ReplayCoverage : std::uint8_t { Full, Sampled };

/// The first wrong value: the lowest rank, then chunk, then element.
struct Mismatch {
  sched::Rank rank = 0;
  sched::ChunkId chunk = 0;
  sched::Buffer buffer = sched::Buffer::Data;
  std::uint64_t element = 0;  ///< index in the rank's buffer (chunk offset / element size + position in the chunk)
  std::string expected;       ///< the collective's value ("24", or "24 +- 0.5" where rounding allows a margin)
  std::string found;          ///< what the replay left there ("undefined" when nothing was ever written)
};

/// The outcome of a replay.
struct ReplayReport {
  bool verified = false;
  DType dtype = DType::Float32;  ///< the type replayed (uint8 after the fallback)
  ReduceOp op = ReduceOp::Sum;
  /// The collective combines values (all-reduce, reduce-scatter, reduce), so `op` applies; the
  /// others (broadcast, all-gather, all-to-all, send/recv) only move them.
  bool reduces = true;
  ReplayCoverage coverage = ReplayCoverage::Full;
  std::uint64_t values_checked = 0;  ///< (rank, element) values compared with the collective
  bool symbolic = false;             ///< the symbolic replay ran too (sampled coverage)
  std::string note;                  ///< why the dtype or the coverage differs from what was asked; empty otherwise
  std::optional<Mismatch> mismatch;  ///< set when a value is wrong
  std::string problem;               ///< one line: the first thing wrong; empty when verified
};

/// Replays `schedule` on CPU buffers and checks the result. Never throws for a bad schedule (a
/// chunk table that does not fit the collective, ops or deps out of range, a dependency cycle, an
/// op that reads undefined data, a wrong value): those come back as `problem`.
/// Throws std::bad_alloc only when even the sampled replay does not fit in memory.
[[nodiscard]] ReplayReport replay_on_cpu(const sched::Schedule& schedule, const ReplayOptions& options = {});

/// One line for people: "verified: float32 sum, all 4096 values of 8 ranks (numeric replay)" (no
/// op for a collective that does not reduce: "verified: float32, ...") or
/// "verification failed: rank 2 chunk 1 (data) element 7: expected 10, found 6".
[[nodiscard]] std::string replay_summary(const ReplayReport& report);


}  // namespace collsim::validation
