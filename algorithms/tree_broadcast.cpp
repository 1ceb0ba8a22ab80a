#include "algorithms/tree_broadcast.hpp"

#include "algorithms/nccl_trees.hpp"
#include "algorithms/tree_pipeline.hpp"

namespace collsim::algo {

sched::Schedule build_tree_broadcast(const Request& request) {
  const Tree btree = nccl_btree(request.nranks);
  auto chunks = pipeline_chunks(0, request.size, request.chunk_size);
  const auto count = static_cast<sched::ChunkId>(chunks.size());
  // Going down, every child gets its own copy of the parent's chunk: no scratch needed.
  // The builder checks the root before the tree is rotated onto it.
  sched::ScheduleBuilder b(
      sched::ScheduleHeader{sched::Collective::Broadcast, request.nranks, request.size, request.root, 0},
      std::move(chunks));
  emit_tree_flow(b, rotate_tree(btree, request.root), TreeFlow::Broadcast, TreeShare{0, count, 0, 0});
  return std::move(b).build("tree");
}

}  // namespace collsim::algo
