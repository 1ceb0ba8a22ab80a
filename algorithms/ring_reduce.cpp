#include "algorithms/ring_reduce.hpp"

#include "algorithms/ring_chain.hpp"

namespace collsim::algo {

sched::Schedule build_ring_reduce(const Request& request) {
  // The chain starts after the root and ends at it (chain rank N-1); each rank adds and forwards.
  return build_ring_chain(request, sched::Collective::Reduce, request.root + 1, sched::Combine::Reduce);
}

}  // namespace collsim::algo
