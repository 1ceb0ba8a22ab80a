#include "sim/network/maxmin.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace collsim::net {

std::uint32_t MaxMinSolver::add_resource(double capacity) {
  if (!(capacity > 0)) throw std::invalid_argument("MaxMinSolver: a capacity must be positive");
  capacity_.push_back(capacity);
  return static_cast<std::uint32_t>(capacity_.size() - 1);
}

std::uint32_t MaxMinSolver::add_flow_over(std::span<const std::uint32_t> resources, std::uint32_t count) {
  for (auto r : resources)
    if (r >= capacity_.size()) throw std::invalid_argument("MaxMinSolver: flow crosses an unknown resource");
  flow_resources_.insert(flow_resources_.end(), resources.begin(), resources.end());
  flow_offsets_.push_back(static_cast<std::uint32_t>(flow_resources_.size()));
  flow_count_.push_back(count);
  return static_cast<std::uint32_t>(flow_offsets_.size() - 2);
}

void MaxMinSolver::clear() noexcept {
  capacity_.clear();
  flow_offsets_.resize(1);
  flow_resources_.clear();
  flow_count_.clear();
}

std::vector<double> MaxMinSolver::solve() const {
  std::vector<double> rate;
  Scratch scratch;
  solve_with(rate, scratch);
  return rate;
}

void MaxMinSolver::solve_into(std::vector<double>& rate) { solve_with(rate, scratch_); }

void MaxMinSolver::solve_with(std::vector<double>& rate, Scratch& s) const {
  const double inf = std::numeric_limits<double>::infinity();
  const std::size_t nflows = flow_offsets_.size() - 1;
  rate.assign(nflows, inf);
  s.left.assign(capacity_.begin(), capacity_.end());
  s.unfrozen.assign(capacity_.size(), 0);
  s.fixed.assign(nflows, 0);
  s.bottleneck.resize(capacity_.size());
  std::size_t remaining = 0;
  for (std::size_t f = 0; f < nflows; ++f) {
    if (flow(f).empty() || flow_count_[f] == 0) {
      s.fixed[f] = 1;
      continue;
    }
    ++remaining;
    for (auto r : flow(f)) s.unfrozen[r] += flow_count_[f];
  }
  while (remaining > 0) {
    // The bottleneck: the smallest fair share among resources that still have unfrozen flows.
    double share = inf;
    for (std::size_t r = 0; r < capacity_.size(); ++r)
      if (s.unfrozen[r] > 0) share = std::min(share, s.left[r] / static_cast<double>(s.unfrozen[r]));
    // Fix every unfrozen flow that crosses a resource at that share (ties fixed together).
    for (std::size_t r = 0; r < capacity_.size(); ++r)
      s.bottleneck[r] = s.unfrozen[r] > 0 && s.left[r] / static_cast<double>(s.unfrozen[r]) <= share;
    for (std::size_t f = 0; f < nflows; ++f) {
      if (s.fixed[f]) continue;
      bool hit = false;
      for (auto r : flow(f)) hit = hit || s.bottleneck[r];
      if (!hit) continue;
      s.fixed[f] = 1;
      rate[f] = share;
      --remaining;
      // One subtraction per flow of the class, not left -= count * share: the same rounding as
      // `count` separate flows, so grouping flows into classes gives bit-identical rates.
      const std::uint32_t count = flow_count_[f];
      for (auto r : flow(f)) {
        double left = s.left[r];
        for (std::uint32_t k = 0; k < count; ++k) left -= share;
        s.left[r] = left;
        s.unfrozen[r] -= count;
      }
    }
  }
}

}  // namespace collsim::net
