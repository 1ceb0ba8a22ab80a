#include "algorithms/tree_allreduce.hpp"

#include "algorithms/nccl_trees.hpp"
#include "algorithms/tree_pipeline.hpp"

namespace collsim::algo {

sched::Schedule build_tree_allreduce(const Request& request) {
  return build_one_tree(request, sched::Collective::AllReduce, nccl_btree(request.nranks), TreeFlow::AllReduce);
}

}  // namespace collsim::algo
