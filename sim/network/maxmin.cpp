#include "sim/network/maxmin.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace collsim::net {

std::uint32_t MaxMinSolver::add_resource(double capacity) {
  if (!(capacity > 0)) throw std::invalid_argument("MaxMinSolver: a capacity must be positive");
  capacity_.push_back(capacity);
  return static_cast<std::uint32_t>(capacity_.size() - 1);
}

std::uint32_t MaxMinSolver::add_resource_left(double left) {
  // A round's subtractions may leave a hair below 0 on a resource they close; resumed there, the
  // problem goes on from that double, as the whole solve would.
  if (!std::isfinite(left)) throw std::invalid_argument("MaxMinSolver: what is left of a capacity must be finite");
  capacity_.push_back(left);
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

std::vector<double> MaxMinSolver::solve_by_rounds() const {
  std::vector<double> rate;
  Scratch scratch;
  solve_rounds(rate, scratch);
  return rate;
}

void MaxMinSolver::solve_into(std::vector<double>& rate) { solve_with(rate, scratch_); }

void MaxMinSolver::start_solve(std::vector<double>& rate, Scratch& s) const {
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
  s.share.resize(nres);
  s.bottleneck.assign(nres, 0);
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
}

void MaxMinSolver::fix(std::uint32_t f, double share, std::vector<double>& rate, Scratch& s) const {
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

bool MaxMinSolver::settle(std::uint32_t r, double share, Scratch& s) const {
  // Every class fixed now takes `share` from each of its resources: one subtraction per flow, not
  // left -= n * share, which rounds differently; so a class of n flows gives bit for bit what n
  // separate flows give, in any order (every subtraction of a round is of the same share). A
  // resource left with no unfrozen flow is never read again and is skipped.
  // Recorded rounds take it from a closing resource too: a resumed problem with one more flow
  // there reads it.
  const bool open = s.open(r);
  if (open || record_ != nullptr) {
    double left = s.left[r];
    for (std::uint64_t k = 0; k < s.fixed_now[r]; ++k) left -= share;
    if (s.fixed_weight[r] != 0.0) left = std::max(0.0, left - s.fixed_weight[r] * share);
    s.left[r] = left;
    if (record_ != nullptr) record_->push_back(Settled{r, share, left, s.fixed_now[r]});
  }
  s.fixed_now[r] = 0;
  s.fixed_weight[r] = 0.0;
  return open;
}

void MaxMinSolver::solve_with(std::vector<double>& rate, Scratch& s) const {
  start_solve(rate, s);
  // A few plain rounds first: most systems (a tree's flows, a ring's) are settled in one to three,
  // where building the heap would cost more than the scans. Their state is the heap's after as many
  // rounds, so the heap takes over from it unchanged.
  for (int round = 0; round < plain_rounds_ && !s.active.empty(); ++round) plain_round(rate, s);
  if (s.active.empty()) return;
  const std::size_t nres = capacity_.size();
  // Classes by resource, in class order.
  s.by_resource_offsets.assign(nres + 1, 0);
  for (const std::uint32_t f : s.active)
    for (auto r : flow(f)) ++s.by_resource_offsets[r + 1];
  for (std::size_t r = 0; r < nres; ++r) s.by_resource_offsets[r + 1] += s.by_resource_offsets[r];
  s.by_resource.resize(s.by_resource_offsets[nres]);
  s.touched.assign(s.by_resource_offsets.begin(), s.by_resource_offsets.end() - 1);  // fill cursors
  for (const std::uint32_t f : s.active)
    for (auto r : flow(f)) s.by_resource[s.touched[r]++] = f;
  s.frozen.assign(flow_offsets_.size() - 1, 1);
  for (const std::uint32_t f : s.active) s.frozen[f] = 0;
  // One heap entry per open resource at its current fair share; an entry whose share is no longer
  // the resource's (or whose resource closed) is stale and skipped when it comes up.
  const auto later = [](const std::pair<double, std::uint32_t>& a, const std::pair<double, std::uint32_t>& b) {
    return a.first > b.first || (a.first == b.first && a.second > b.second);
  };
  s.heap.clear();
  for (std::uint32_t r = 0; r < nres; ++r)
    if (s.open(r)) s.heap.emplace_back(s.fair_share(r), r);
  std::make_heap(s.heap.begin(), s.heap.end(), later);
  const auto current = [&](const std::pair<double, std::uint32_t>& e) {
    return s.open(e.second) && !s.bottleneck[e.second] && s.fair_share(e.second) == e.first;
  };
  while (!s.heap.empty()) {
    std::pop_heap(s.heap.begin(), s.heap.end(), later);
    const auto top = s.heap.back();
    s.heap.pop_back();
    if (!current(top)) continue;
    // The round's share is the smallest fair share; every resource at it is a bottleneck (ties
    // fixed together), as the plain rounds find them.
    const double share = top.first;
    s.touched.clear();
    s.touched.push_back(top.second);
    s.bottleneck[top.second] = 1;
    while (!s.heap.empty() && s.heap.front().first <= share) {
      std::pop_heap(s.heap.begin(), s.heap.end(), later);
      const auto e = s.heap.back();
      s.heap.pop_back();
      if (!current(e)) continue;
      s.bottleneck[e.second] = 1;
      s.touched.push_back(e.second);
    }
    // The unfixed classes crossing a bottleneck, fixed in class order (the plain rounds' order,
    // which the weighted counts' subtractions follow).
    s.fixing.clear();
    for (const std::uint32_t r : s.touched)
      for (std::uint32_t k = s.by_resource_offsets[r]; k < s.by_resource_offsets[r + 1]; ++k) {
        const std::uint32_t f = s.by_resource[k];
        if (s.frozen[f]) continue;
        s.frozen[f] = 1;
        s.fixing.push_back(f);
      }
    // Only weighted counts depend on the order (their subtractions round); integer counts do not.
    if (weighted_) std::sort(s.fixing.begin(), s.fixing.end());
    for (const std::uint32_t r : s.touched) s.bottleneck[r] = 0;
    s.touched.clear();
    for (const std::uint32_t f : s.fixing) {
      fix(f, share, rate, s);
      for (auto r : flow(f))
        if (!s.bottleneck[r]) {
          s.bottleneck[r] = 1;  // marks "touched this round" until settled below
          s.touched.push_back(r);
        }
    }
    for (const std::uint32_t r : s.touched) {
      s.bottleneck[r] = 0;
      if (settle(r, share, s)) {
        s.heap.emplace_back(s.fair_share(r), r);
        std::push_heap(s.heap.begin(), s.heap.end(), later);
      }
    }
  }
}

void MaxMinSolver::plain_round(std::vector<double>& rate, Scratch& s) const {
  const double inf = std::numeric_limits<double>::infinity();
  const std::size_t nres = capacity_.size();
  // The bottleneck: the smallest fair share among resources that still have unfrozen flows.
  double share = inf;
  for (std::size_t r = 0; r < nres; ++r)
    if (s.open(r)) {
      s.share[r] = s.fair_share(r);
      share = std::min(share, s.share[r]);
    }
  // Fix every unfrozen flow that crosses a resource at that share (ties fixed together).
  for (std::size_t r = 0; r < nres; ++r) s.bottleneck[r] = s.open(r) && s.share[r] <= share;
  std::size_t kept = 0;
  for (const std::uint32_t f : s.active) {
    bool hit = false;
    for (auto r : flow(f)) hit = hit || s.bottleneck[r];
    if (!hit) {
      s.active[kept++] = f;
      continue;
    }
    fix(f, share, rate, s);
  }
  s.active.resize(kept);
  for (std::size_t r = 0; r < nres; ++r) {
    s.bottleneck[r] = 0;
    if (s.fixed_now[r] == 0 && s.fixed_weight[r] == 0.0) continue;
    (void)settle(static_cast<std::uint32_t>(r), share, s);
  }
}

void MaxMinSolver::solve_rounds(std::vector<double>& rate, Scratch& s) const {
  start_solve(rate, s);
  while (!s.active.empty()) plain_round(rate, s);
}

}  // namespace collsim::net
