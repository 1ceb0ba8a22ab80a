#include "algorithms/halving_doubling_allgather.hpp"

#include "algorithms/recursive_doubling_allgather.hpp"

namespace collsim::algo {

sched::Schedule build_halving_doubling_allgather(const Request& request) {
  auto schedule = build_recursive_doubling_allgather(request);
  schedule.algorithm = "halving-doubling";
  return schedule;
}

}  // namespace collsim::algo
