// What the NVLSTree all-reduce's materialised schedule (nvls_tree_allreduce.cpp) and its stream
// (nvls_tree_stream.cpp) share: the chunk table and the two trees of hosts, level by level, so the
// two forms cut the buffer and walk the trees alike.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "algorithms/nccl_trees.hpp"
#include "algorithms/registry.hpp"
#include "sim/schedule/schedule.hpp"

namespace collsim::algo {

/// The chunk table: the pipeline chunks of every (part, half), in offset order; then the switch's
/// scratch, one chunk per sending GPU for each (part, half, chunk size), as nvls_allreduce.cpp
/// keeps it (parts run side by side, the chunks of one part reuse it one after another); then one
/// tree scratch chunk per pipeline chunk, where a head takes its second child host's sum. Scratch
/// chunks get offsets of their own so that none alias in a replay.
struct NvlsTreeChunks {
  std::vector<sched::Chunk> chunks;
  std::vector<std::array<std::vector<sched::ChunkId>, 2>> pieces;  ///< by part, by half: data chunk ids in order
  std::map<std::tuple<std::uint32_t, unsigned, Bytes>, sched::ChunkId> slots;  ///< first of L
  sched::ChunkId tree_scratch = 0;  ///< tree scratch of data chunk c: tree_scratch + c

  /// The switch's scratch chunk for sender `local` of (part, half) chunks of `size` bytes.
  [[nodiscard]] sched::ChunkId slot(std::uint32_t part, unsigned half, Bytes size, sched::Rank local) const {
    return slots.at({part, half, size}) + local;
  }
};

/// The table for `locals` = L parts (split_parts), each cut in two halves (split_even) and each half
/// into pipeline chunks of request.chunk_size; switch scratch when `switch_scratch`, tree scratch
/// when `tree_scratch`. Throws as pipeline_chunks does.
NvlsTreeChunks nvls_tree_chunks(const Request& request, sched::Rank locals, bool switch_scratch, bool tree_scratch);

/// One tree over host indices with its depths and height, and the hosts level by level (the
/// builder's order): `up` from the deepest level (children before their parent), highest host
/// index first within a level; `down` from the root, lowest host index first within a level.
struct HostLevels {
  Tree tree;
  std::vector<std::uint32_t> depth;
  std::vector<sched::Rank> up, down;
  std::uint32_t height = 0;
};

/// `tree`'s levels.
HostLevels host_levels(Tree tree);

/// The phases of a schedule whose last step is `last` (> 0), `height` the taller tree's: "reduce
/// at the switch" (steps 1..2, with switches), "tree between hosts" (one host: "reduce +
/// multicast") for the steps between, and "multicast" (the last two, with switches). Phases do not
/// overlap, so the middle one names what the pipeline mixes.
std::vector<sched::Phase> nvls_tree_phases(bool switches, std::uint32_t height, std::uint32_t last);

}  // namespace collsim::algo
