#include "algorithms/tree_reduce.hpp"

#include "algorithms/nccl_trees.hpp"
#include "algorithms/tree_pipeline.hpp"

namespace collsim::algo {

sched::Schedule build_tree_reduce(const Request& request) {
  const Tree btree = nccl_btree(request.nranks);
  auto chunks = pipeline_chunks(0, request.size, request.chunk_size);
  const auto count = static_cast<sched::ChunkId>(chunks.size());
  if (needs_scratch(btree)) add_scratch_chunks(chunks);
  // The builder checks the root before the tree is rotated onto it.
  sched::ScheduleBuilder b(
      sched::ScheduleHeader{sched::Collective::Reduce, request.nranks, request.size, request.root, 0},
      std::move(chunks));
  emit_tree_flow(b, rotate_tree(btree, request.root), TreeFlow::Reduce, TreeShare{0, count, count, 0});
  return std::move(b).build("tree");
}

}  // namespace collsim::algo
