// Pipelined reduce, broadcast and all-reduce over one tree (nccl_trees.hpp), as NCCL's tree
// kernels run them (NVIDIA/nccl src/device/all_reduce.h, runTreeUpDown / runTreeSplit): the
// message moves in pipeline chunks; for each chunk a rank waits for its children's chunk, reduces
// it into its own and sends the sum to its parent (reduce), and a rank forwards each chunk it gets
// from its parent to its children (broadcast). All-reduce is both, per chunk, so chunk c goes down
// while chunk c+1 still goes up.
//
// Ranks with two children receive the second child's chunk into a scratch chunk and add it into
// their own with a local op: a real rank receives from both children at once (NCCL gives each
// peer its own receive buffer), while two reduces into one chunk would be ordered one after the
// other by the builder's write-after-write rule.
//
// Steps, for a tree of height D (ceil(log2 N) for NCCL's trees) and C pipeline chunks:
// reduce: a rank at depth d sends chunk i (0-based) up in step i + D - d + 1, so the last chunk
// reaches the root in step D + C - 1; broadcast: it sends chunk i down in step b + i + d + 1 with
// b = 0, so the last chunk reaches the deepest leaf in step D + C - 1; all-reduce: the broadcast of
// chunk i starts when it is reduced, b = D, which ends in step 2D + C - 1. A scratch chunk is added
// in the step its second child's chunk arrives.
#pragma once

#include "algorithms/chunk_tables.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/nccl_trees.hpp"
#include "algorithms/registry.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {


/// Appends to `chunks` one scratch chunk per chunk (same offset and size); the scratch chunk of
/// chunk c is c + the number of chunks given.
void add_scratch_chunks(std::vector<sched::Chunk>& chunks);

/// True when some rank of `tree` has two children, so a flow over it needs scratch chunks.
bool needs_scratch(const Tree& tree);

/// What moves over a tree: the root's data to every rank (broadcast), the sum of every rank's data
/// to the root (reduce), or the sum to every rank (all-reduce).
enum class TreeFlow { Reduce, Broadcast, AllReduce };

/// The pipeline chunks one tree carries: data chunks first .. first+count-1, in that order, with
/// scratch chunk c + scratch_offset for data chunk c, on channel `channel`.
struct TreeShare {
  sched::ChunkId first = 0;
  sched::ChunkId count = 0;
  sched::ChunkId scratch_offset = 0;  ///< unused when the tree does not need scratch
  std::uint16_t channel = 0;
};

/// Appends the ops of `flow` over `tree` for the chunks of `share` to `b`, chunk after chunk,
/// with the steps in the header comment. A tree of one rank adds nothing.
/// Precondition: the chunks, and scratch chunks when needs_scratch(tree), exist in `b`.
void emit_tree_flow(sched::ScheduleBuilder& b, const Tree& tree, TreeFlow flow, const TreeShare& share);

/// The step count of `flow` over a tree of height `height` with `chunks` >= 1 pipeline chunks:
/// reduce and broadcast height + chunks - 1, all-reduce 2·height + chunks - 1; 0 when height is 0.
std::uint32_t tree_flow_steps(TreeFlow flow, std::uint32_t height, std::uint32_t chunks) noexcept;

/// The schedule of `flow` over one tree (tree, reduce, broadcast and all-reduce): the request's
/// buffer in pipeline chunks (plus scratch chunks when the flow reduces over a tree that needs
/// them), the ops of emit_tree_flow on channel 0, the all-reduce phases, named "tree".
/// `collective` names what `flow` computes (its header takes the request's root for broadcast and
/// reduce; `tree` must already be rooted there).
sched::Schedule build_one_tree(const Request& request, sched::Collective collective, const Tree& tree, TreeFlow flow);

/// The all-reduce of two trees side by side (NCCL's double binary tree): the first half of the
/// buffer (split_parts(request, 2)) in pipeline chunks on `first`, channel 0, the second half on
/// `second`, channel 1, scratch chunks when either tree needs them, named `algorithm`. The phases
/// are the taller tree's with the first half's chunk count (the larger half), so they name every
/// step. Precondition: both trees span request.nranks ranks.
sched::Schedule build_tree_pair(const Request& request, const Tree& first, const Tree& second,
                                std::string algorithm);

/// Names the steps of a pipelined tree all-reduce: "reduce" (1..D, only chunks going up),
/// "reduce + broadcast" (D+1..D+C-1, both ways, when C > 1) and "broadcast" (D+C..2D+C-1).
/// Nothing when height is 0.
std::vector<sched::Phase> allreduce_phases(std::uint32_t height, std::uint32_t chunks);

/// Adds allreduce_phases(height, chunks) to `b`.
void add_allreduce_phases(sched::ScheduleBuilder& b, std::uint32_t height, std::uint32_t chunks);

/// The chunks of build_tree_pair's buffer: the first half (split_parts(request, 2)) in pipeline
/// chunks, then the second half's, then one scratch chunk per chunk when `scratch`. Sets `first_count`
/// to the first half's chunk count and `total` to both halves'.
std::vector<sched::Chunk> tree_pair_chunks(const Request& request, bool scratch, sched::ChunkId& first_count,
                                           sched::ChunkId& total);

}  // namespace collsim::algo
