#include "algorithms/nccl_tree_allreduce.hpp"

#include "algorithms/node_trees.hpp"
#include "algorithms/tree_pipeline.hpp"

namespace collsim::algo {

sched::Schedule build_nccl_tree_allreduce(const Request& request) {
  const auto [first, second] = nccl_node_dtree(request.nranks, request.hosts);
  return build_tree_pair(request, first, second, "nccl-tree");
}

}  // namespace collsim::algo
