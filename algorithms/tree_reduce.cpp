#include "algorithms/tree_reduce.hpp"

#include "algorithms/nccl_trees.hpp"
#include "algorithms/tree_pipeline.hpp"

namespace collsim::algo {

sched::Schedule build_tree_reduce(const Request& request) {
  // A root out of range is refused by the schedule builder (rotate_tree only renames ranks mod N).
  return build_one_tree(request, sched::Collective::Reduce, rotate_tree(nccl_btree(request.nranks), request.root), TreeFlow::Reduce);
}

}  // namespace collsim::algo
