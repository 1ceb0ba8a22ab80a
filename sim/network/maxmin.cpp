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

std::uint32_t MaxMinSolver::add_flow_over(std::span<const std::uint32_t> resources, std::uint32_t count,
                                          std::span<const double> weights) {
  for (auto r : resources)
    if (r >= capacity_.size()) throw std::invalid_argument("MaxMinSolver: flow crosses an unknown resource");
  if (!weights.empty() && weights.size() != resources.size())
    throw std::invalid_argument("MaxMinSolver: one weight per resource expected");
  for (double w : weights)
    if (!(w > 0.0 && w <= 1.0)) throw std::invalid_argument("MaxMinSolver: a weight must be in (0, 1]");
  flow_resources_.insert(flow_resources_.end(), resources.begin(), resources.end());
  for (std::size_t i = 0; i < resources.size(); ++i) {
    const double w = weights.empty() ? 1.0 : weights[i];
    flow_weights_.push_back(w);
    weighted_ = weighted_ || w < 1.0;
  }
  flow_offsets_.push_back(static_cast<std::uint32_t>(flow_resources_.size()));
  flow_count_.push_back(count);
  return static_cast<std::uint32_t>(flow_offsets_.size() - 2);
}

void MaxMinSolver::clear() noexcept {
  capacity_.clear();
  flow_offsets_.resize(1);
  flow_resources_.clear();
  flow_count_.clear();
  flow_weights_.clear();
  weighted_ = false;
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
  const std::size_t nres = capacity_.size();
  rate.assign(nflows, inf);
  s.left.assign(capacity_.begin(), capacity_.end());
  s.unfrozen.assign(nres, 0);
  s.fixed_now.assign(nres, 0);
  s.unfrozen_weight.assign(nres, 0.0);
  s.unfrozen_weighted.assign(nres, 0);
  s.fixed_weight.assign(nres, 0.0);
  // Without sprayed flows (the usual case) every weight is 1 and none is read in the rounds.
  const auto weight = [&](std::size_t f, std::size_t i) { return weighted_ ? flow_weights_[flow_offsets_[f] + i] : 1.0; };
  s.share.resize(nres);
  s.bottleneck.resize(nres);
  s.active.clear();
  for (std::size_t f = 0; f < nflows; ++f) {
    if (flow(f).empty() || flow_count_[f] == 0) continue;
    s.active.push_back(static_cast<std::uint32_t>(f));
    const auto rs = flow(f);
    for (std::size_t i = 0; i < rs.size(); ++i) {
      const double w = weight(f, i);
      if (w == 1.0) {
        s.unfrozen[rs[i]] += flow_count_[f];
      } else {
        s.unfrozen_weight[rs[i]] += w * flow_count_[f];
        s.unfrozen_weighted[rs[i]] += flow_count_[f];
      }
    }
  }
  // A resource with unfrozen flows, and their summed weights (weight-1 flows counted exactly).
  const auto open = [&](std::size_t r) { return s.unfrozen[r] > 0 || s.unfrozen_weighted[r] > 0; };
  const auto load = [&](std::size_t r) { return static_cast<double>(s.unfrozen[r]) + s.unfrozen_weight[r]; };
  while (!s.active.empty()) {
    // The bottleneck: the smallest fair share among resources that still have unfrozen flows.
    double share = inf;
    for (std::size_t r = 0; r < nres; ++r)
      if (open(r)) {
        s.share[r] = s.left[r] / load(r);
        share = std::min(share, s.share[r]);
      }
    // Fix every unfrozen flow that crosses a resource at that share (ties fixed together).
    for (std::size_t r = 0; r < nres; ++r) s.bottleneck[r] = open(r) && s.share[r] <= share;
    std::size_t kept = 0;
    for (const std::uint32_t f : s.active) {
      bool hit = false;
      for (auto r : flow(f)) hit = hit || s.bottleneck[r];
      if (!hit) {
        s.active[kept++] = f;
        continue;
      }
      rate[f] = share;
      const auto rs = flow(f);
      for (std::size_t i = 0; i < rs.size(); ++i) {
        const double w = weight(f, i);
        if (w == 1.0) {
          s.unfrozen[rs[i]] -= flow_count_[f];
          s.fixed_now[rs[i]] += flow_count_[f];
        } else {
          s.unfrozen_weighted[rs[i]] -= flow_count_[f];
          s.unfrozen_weight[rs[i]] = s.unfrozen_weighted[rs[i]] == 0 ? 0.0 : s.unfrozen_weight[rs[i]] - w * flow_count_[f];
          s.fixed_weight[rs[i]] += w * flow_count_[f];
        }
      }
    }
    s.active.resize(kept);
    // Every flow fixed now takes `share` from each of its resources: one subtraction per flow, not
    // left -= n * share, which rounds differently; so a class of n flows gives bit for bit what n
    // separate flows give, in any order (every subtraction of a round is of the same share). A
    // resource left with no unfrozen flow is never read again and is skipped.
    for (std::size_t r = 0; r < nres; ++r) {
      if (s.fixed_now[r] == 0 && s.fixed_weight[r] == 0.0) continue;
      if (open(r)) {
        double left = s.left[r];
        for (std::uint64_t k = 0; k < s.fixed_now[r]; ++k) left -= share;
        if (s.fixed_weight[r] != 0.0) left = std::max(0.0, left - s.fixed_weight[r] * share);
        s.left[r] = left;
      }
      s.fixed_now[r] = 0;
      s.fixed_weight[r] = 0.0;
    }
  }
}

}  // namespace collsim::net
