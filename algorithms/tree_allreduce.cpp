#include "algorithms/tree_allreduce.hpp"

#include "algorithms/nccl_trees.hpp"
#include "algorithms/tree_pipeline.hpp"

namespace collsim::algo {

sched::Schedule build_tree_allreduce(const Request& request) {
  const Tree tree = nccl_btree(request.nranks);
  auto chunks = pipeline_chunks(0, request.size, request.chunk_size);
  const auto count = static_cast<sched::ChunkId>(chunks.size());
  if (needs_scratch(tree)) add_scratch_chunks(chunks);
  sched::ScheduleBuilder b(sched::ScheduleHeader{sched::Collective::AllReduce, request.nranks, request.size, 0, 0},
                           std::move(chunks));
  emit_tree_flow(b, tree, TreeFlow::AllReduce, TreeShare{0, count, count, 0});
  add_allreduce_phases(b, tree_height(tree), count);
  return std::move(b).build("tree");
}

}  // namespace collsim::algo
