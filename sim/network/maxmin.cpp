#include "sim/network/maxmin.hpp"

#include <limits>
#include <stdexcept>

namespace collsim::net {

std::uint32_t MaxMinSolver::add_resource(double capacity) {
  if (!(capacity > 0)) throw std::invalid_argument("MaxMinSolver: a capacity must be positive");
  capacity_.push_back(capacity);
  return static_cast<std::uint32_t>(capacity_.size() - 1);
}

std::uint32_t MaxMinSolver::add_flow(std::vector<std::uint32_t> resources) {
  for (auto r : resources)
    if (r >= capacity_.size()) throw std::invalid_argument("MaxMinSolver: flow crosses an unknown resource");
  flows_.push_back(std::move(resources));
  return static_cast<std::uint32_t>(flows_.size() - 1);
}

std::vector<double> MaxMinSolver::solve() const {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> rate(flows_.size(), inf);
  std::vector<double> left = capacity_;
  std::vector<std::uint32_t> unfrozen(capacity_.size(), 0);
  std::vector<bool> fixed(flows_.size(), false);
  std::size_t remaining = 0;
  for (std::size_t f = 0; f < flows_.size(); ++f) {
    if (flows_[f].empty()) {
      fixed[f] = true;
      continue;
    }
    ++remaining;
    for (auto r : flows_[f]) ++unfrozen[r];
  }
  while (remaining > 0) {
    // The bottleneck: the smallest fair share among resources that still have unfrozen flows.
    double share = inf;
    for (std::size_t r = 0; r < capacity_.size(); ++r)
      if (unfrozen[r] > 0) share = std::min(share, left[r] / unfrozen[r]);
    // Fix every unfrozen flow that crosses a resource at that share (ties fixed together).
    std::vector<bool> bottleneck(capacity_.size(), false);
    for (std::size_t r = 0; r < capacity_.size(); ++r)
      bottleneck[r] = unfrozen[r] > 0 && left[r] / unfrozen[r] <= share;
    for (std::size_t f = 0; f < flows_.size(); ++f) {
      if (fixed[f]) continue;
      bool hit = false;
      for (auto r : flows_[f]) hit = hit || bottleneck[r];
      if (!hit) continue;
      fixed[f] = true;
      rate[f] = share;
      --remaining;
      for (auto r : flows_[f]) {
        left[r] -= share;
        --unfrozen[r];
      }
    }
  }
  return rate;
}

}  // namespace collsim::net
