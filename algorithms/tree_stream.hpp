// Pipelined tree all-reduce, reduce and broadcast on demand (sched::OpStream): the ops of
// tree_pipeline.hpp's emit_tree_flow over one tree (tree) or two side by side (double-tree,
// nccl-tree, all-reduce only), generated as the engine asks for them, so a run holds O(N + ops in
// flight) and keeps its pipeline chunk at any N (issue 18 item 3: 16,384 ranks with 512 KiB chunks).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "algorithms/nccl_trees.hpp"
#include "algorithms/tree_pipeline.hpp"
#include "algorithms/registry.hpp"

namespace collsim::algo {

/// The stream of build_one_tree(request, AllReduce, trees[0], TreeFlow::AllReduce) (one tree), or
/// of build_tree_pair(request, trees[0], trees[1], algorithm) (two): the same header, chunks and
/// ops. Per pipeline chunk and tree, a rank's ops are its add of the second child's scratch chunk
/// (two children), its send up (not the root), and its sends down to each child. Each waits for
/// the ops the builder's data-flow rules give it, transitively reduced (the builder's extra edges
/// are implied: an op waits for them through the ones kept):
///   add(r)      <- up(child 0), up(child 1)
///   up(r)       <- add(r) (two children), up(child 0) (one), nothing (a leaf)
///   down(r, x)  <- what last wrote r's chunk (down(parent, r); at the root add(root), or up(its
///                  only child)); the builder's up(x), which reads x's chunk before it is
///                  overwritten, is implied too (up(x) -> add(r) or up(r) -> ... -> that write)
/// Successors come in the builder's op order (all sends up of a chunk before its sends down), so
/// the engine starts ops in the order it starts the materialised schedule's (tests/unit/
/// tree_stream_test.cpp checks every op's times). Every leaf's send of every chunk has no
/// dependency: they wait on their connection, as in the materialised run.
/// Preconditions: 1 or 2 trees, each over request.nranks ranks, N < 2^29; throws
/// std::invalid_argument otherwise, and as pipeline_chunks does.
std::unique_ptr<sched::OpStream> make_tree_allreduce_stream(const Request& request, std::vector<Tree> trees,
                                                            std::string algorithm);

/// The stream of build_one_tree(request, collective, tree, flow) for a reduce or a broadcast over
/// one tree (`tree` rooted at request.root): the same header, chunks and ops. A reduce is the
/// all-reduce's ascent (adds and sends up, ending at the root); a broadcast is its descent, whose
/// root sends each chunk to its children from the start (chained chunk after chunk, as the
/// leaves' sends up are) and every other send down waits for its rank's receive of the chunk.
/// Throws std::invalid_argument as make_tree_allreduce_stream does.
std::unique_ptr<sched::OpStream> make_one_tree_stream(const Request& request, sched::Collective collective, Tree tree,
                                                      TreeFlow flow);

/// Registry entries (tree, double-tree and nccl-tree all-reduce, tree reduce and broadcast on
/// NCCL's btree rotated to the root, on demand). The reduce and broadcast throw
/// std::invalid_argument for a root out of range, as the schedule builder does.
std::unique_ptr<sched::OpStream> stream_tree_reduce(const Request& request);
std::unique_ptr<sched::OpStream> stream_tree_broadcast(const Request& request);
std::unique_ptr<sched::OpStream> stream_tree_allreduce(const Request& request);
std::unique_ptr<sched::OpStream> stream_double_tree_allreduce(const Request& request);
std::unique_ptr<sched::OpStream> stream_nccl_tree_allreduce(const Request& request);

}  // namespace collsim::algo
