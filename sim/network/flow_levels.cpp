// FlowModel's re-solve from a level on (issue 18 item 4): a flush re-solves only the classes whose
// max-min rate a size change can move, resuming progressive filling where the last solve's rounds
// stop being the same, with the doubles the whole solve gives.
//
// Why it is exact. Progressive filling (MaxMinSolver) fixes classes in rounds of rising share; a
// resource's state between rounds is (what is left, flows not yet fixed), and a class's size enters
// only the second, and only while the class is unfixed. Let C be the classes whose size changed,
// R their resources and d(r) the change of r's flow count. Take `cut` no larger than any changed
// class's old rate and than every share, old and new (left / (unfixed + d)), that a resource of R
// had in any state the old rounds left it in below `cut`. Then every old round below `cut` happens
// again unchanged: its bottleneck is a resource outside R (those of R have shares above the
// round's), it fixes the same classes (no class of C: they were fixed at `cut` or later) at the
// same share, and takes the same subtractions. So the state at `cut` is the old rounds' below it,
// read from each resource's recorded levels, and only the classes not yet fixed there, connected
// to R through such classes, can move; any other unfixed class is in a part of the remaining
// problem that no change reached, whose rounds are the old ones. Those classes are solved from that
// state by the same solver, which records the new rounds in turn.
//
// The recorded levels of a resource are valid while every rate on it came from a recorded solve:
// a class given its rate without one (begin()'s alone flows, retire()'s quiet ends) marks its
// resources, and a change that reaches a marked resource re-solves its whole component from
// nothing. So does a solve whose rounds' shares were not rising (a rounding may make a round's
// share a hair below the one before; then "the rounds below `cut`" is not a prefix), which marks
// every resource it solved.
#include "sim/network/flow_model.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace collsim::net {

void FlowModel::forget_levels(const topo::Route& route) {
  if (history_ok_.empty()) return;
  for (auto r : route.resources) history_ok_[r] = 0;
}

bool FlowModel::lowest_cut(double& cut) {
  // The smallest share, old or new, of each changed resource in every state its levels record
  // below `cut` (the state before a level holds until that level's round).
  for (const std::uint32_t r : resized_) {
    if (!history_ok_[r]) return false;
    const auto& levels = history_[r];
    const std::int64_t old_total = static_cast<std::int64_t>(solved_total_[r]);
    const std::int64_t new_total = old_total + delta_[r];
    double left = static_cast<double>(topology_.link(r).bandwidth.bits_per_s);
    std::int64_t fixed = 0;
    for (std::size_t i = 0;; ++i) {
      const std::int64_t old_open = old_total - fixed, new_open = new_total - fixed;
      if (old_open < 0 || new_open < 0) return false;  // levels that do not add up: never trusted
      // The solver's fair share, the same double (MaxMinSolver::Scratch::fair_share).
      if (old_open > 0) cut = std::min(cut, left / (static_cast<double>(old_open) + 0.0));
      if (new_open > 0) cut = std::min(cut, left / (static_cast<double>(new_open) + 0.0));
      if (i == levels.size() || levels[i].share >= cut) break;
      left = levels[i].left;
      fixed += static_cast<std::int64_t>(levels[i].fixed);
    }
  }
  return true;
}

void FlowModel::collect_region(double cut) {
  // The classes not fixed below `cut` (or changed), reached from the changed resources through such
  // classes, and their resources.
  ++stamp_;
  region_resources_.clear();
  component_.clear();
  for (const std::uint32_t r : resized_) {
    if (resource_[r].seen == stamp_) continue;
    resource_[r].seen = stamp_;
    region_resources_.push_back(r);
  }
  for (std::size_t i = 0; i < region_resources_.size(); ++i) {
    for (const std::uint32_t gi : resource_[region_resources_[i]].classes) {
      if (seen_group_[gi] == stamp_) continue;
      const Group& g = groups_[gi];
      if (!(g.size != g.solved_size || g.rate >= cut)) continue;
      seen_group_[gi] = stamp_;
      component_.push_back(gi);
      for (auto r : g.route->resources)
        if (resource_[r].seen != stamp_) {
          resource_[r].seen = stamp_;
          region_resources_.push_back(r);
        }
    }
  }
}

void FlowModel::solve_levels() {
  if (history_ok_.empty()) {
    history_.resize(resource_.size());
    history_ok_.assign(resource_.size(), 0);
    solved_total_.assign(resource_.size(), 0);
    delta_.assign(resource_.size(), 0);
  }
  // The changed classes' resources and the change of each one's flow count.
  ++stamp_;
  resized_.clear();
  double cut = std::numeric_limits<double>::infinity();
  for (const std::uint32_t gi : touched_) {
    const Group& g = groups_[gi];
    if (g.size == g.solved_size) continue;
    if (g.solved_size > 0) cut = std::min(cut, g.rate);
    for (auto r : g.route->resources) {
      if (resource_[r].resized != stamp_) {
        resource_[r].resized = stamp_;
        resized_.push_back(r);
        delta_[r] = 0;
      }
      delta_[r] += static_cast<std::int64_t>(g.size) - static_cast<std::int64_t>(g.solved_size);
    }
  }
  if (resized_.empty()) return;
  const std::uint32_t resized_stamp = stamp_;  // collect_region stamps anew
  const double none = -std::numeric_limits<double>::infinity();
  if (!lowest_cut(cut)) cut = none;
  collect_region(cut);
  if (cut != none) {
    bool trusted = true;
    for (const std::uint32_t r : region_resources_) trusted = trusted && history_ok_[r];
    if (!trusted) {
      cut = none;
      collect_region(cut);
    }
  }

  ++level_stats_.solves;
  level_stats_.resumed += cut != none;
  level_stats_.classes += component_.size();
  // The resumed problem: each resource with what its levels below `cut` left of it.
  solver_.clear();
  for (const std::uint32_t r : region_resources_) {
    auto& levels = history_[r];
    const auto keep = cut == none ? levels.begin()
                                  : std::lower_bound(levels.begin(), levels.end(), cut,
                                                     [](const Level& l, double c) { return l.share < c; });
    levels.erase(keep, levels.end());
    const double left = levels.empty() ? static_cast<double>(topology_.link(r).bandwidth.bits_per_s) : levels.back().left;
    resource_[r].solver_index = solver_.add_resource_left(left);
    if (cut == none) {
      std::uint64_t total = 0;
      for (const std::uint32_t gi : resource_[r].classes) total += groups_[gi].size;
      solved_total_[r] = total;
      history_ok_[r] = 1;
    } else if (resource_[r].resized == resized_stamp) {
      solved_total_[r] = static_cast<std::uint64_t>(static_cast<std::int64_t>(solved_total_[r]) + delta_[r]);
    }
  }
  for (const std::uint32_t gi : component_) {
    flow_resources_.clear();
    for (auto r : groups_[gi].route->resources) flow_resources_.push_back(resource_[r].solver_index);
    solver_.add_flow_over(flow_resources_, groups_[gi].size);
  }
  settled_.clear();
  solver_.record_rounds(&settled_);
  solver_.solve_into(rates_);
  solver_.record_rounds(nullptr);
  for (std::size_t i = 0; i < component_.size(); ++i) take_rate(component_[i], rates_[i]);
  // The new rounds, appended to their resources' levels; shares that do not rise leave levels that
  // cannot be cut by share, so the region is re-solved from nothing at its next change.
  bool rising = true;
  for (std::size_t i = 0; i < settled_.size(); ++i) {
    if (i > 0 && settled_[i].share < settled_[i - 1].share) rising = false;
    const std::uint32_t r = region_resources_[settled_[i].resource];
    history_[r].push_back(Level{settled_[i].share, settled_[i].left, settled_[i].fixed});
  }
  if (!rising)
    for (const std::uint32_t r : region_resources_) history_ok_[r] = 0;
}

}  // namespace collsim::net
