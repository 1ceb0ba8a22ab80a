#include "algorithms/double_tree_allreduce.hpp"

#include "algorithms/nccl_trees.hpp"
#include "algorithms/tree_pipeline.hpp"

namespace collsim::algo {

sched::Schedule build_double_tree_allreduce(const Request& request) {
  const auto [first, second] = nccl_dtree(request.nranks);
  const auto halves = split_parts(request, 2);
  // The unit is decided by S, not by each half: an S of bytes stays bytes even where a half
  // happens to be a whole number of elements.
  const Bytes unit = sched::cut_unit(request.size, request.element_size);
  auto chunks = pipeline_chunks(0, halves[0].size, request.chunk_size, unit);
  const auto count0 = static_cast<sched::ChunkId>(chunks.size());
  const auto rest = pipeline_chunks(halves[1].offset, halves[1].size, request.chunk_size, unit);
  chunks.insert(chunks.end(), rest.begin(), rest.end());
  const auto total = static_cast<sched::ChunkId>(chunks.size());
  if (needs_scratch(first) || needs_scratch(second)) add_scratch_chunks(chunks);
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllReduce),
                           std::move(chunks));
  emit_tree_flow(b, first, TreeFlow::AllReduce, TreeShare{0, count0, total, 0});
  emit_tree_flow(b, second, TreeFlow::AllReduce, TreeShare{count0, total - count0, total, 1});
  // Both trees have the same shape, so the first (the larger half) sets the phases.
  add_allreduce_phases(b, tree_height(first), count0);
  return std::move(b).build("double-tree");
}

}  // namespace collsim::algo
