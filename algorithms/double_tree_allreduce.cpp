#include "algorithms/double_tree_allreduce.hpp"

#include "algorithms/nccl_trees.hpp"
#include "algorithms/tree_pipeline.hpp"

namespace collsim::algo {

sched::Schedule build_double_tree_allreduce(const Request& request) {
  const auto [first, second] = nccl_dtree(request.nranks);
  return build_tree_pair(request, first, second, "double-tree");
}

}  // namespace collsim::algo
