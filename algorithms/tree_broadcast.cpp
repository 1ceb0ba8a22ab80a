#include "algorithms/tree_broadcast.hpp"

#include "algorithms/nccl_trees.hpp"
#include "algorithms/tree_pipeline.hpp"

namespace collsim::algo {

sched::Schedule build_tree_broadcast(const Request& request) {
  // A root out of range is refused by the schedule builder (rotate_tree only renames ranks mod N).
  return build_one_tree(request, sched::Collective::Broadcast, rotate_tree(nccl_btree(request.nranks), request.root), TreeFlow::Broadcast);
}

}  // namespace collsim::algo
