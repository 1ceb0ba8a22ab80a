#include "algorithms/ring_broadcast.hpp"

#include "algorithms/ring_chain.hpp"

namespace collsim::algo {

sched::Schedule build_ring_broadcast(const Request& request) {
  // The chain starts at the root, which sends; every other rank copies and forwards.
  return build_ring_chain(request, sched::Collective::Broadcast, request.root, sched::Combine::Copy);
}

}  // namespace collsim::algo
