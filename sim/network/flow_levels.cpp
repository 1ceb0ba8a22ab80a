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
// Changes in one flush far apart are re-solved apart, each from its own level: the changes that
// share a resource form one group (their counts add up there), each group finds its level and its
// region, and groups whose regions meet are merged at the lower level until the regions are apart.
// Apart, they are exact: applied one after the other, the second's level and region read only
// resources the first did not re-solve.
//
// The recorded levels of a resource are valid while every rate on it came from a recorded solve or
// from what one would record: a class given its rate without a solve (begin()'s alone flows) gets
// the one round a solve of it alone gives (record_alone), and resources a flow leaves empty
// without one (a flow that ends alone, retire()'s quiet ends) get no rounds (record_emptied).
// Where that cannot be vouched for, the resources are marked, and a change that reaches a marked
// resource re-solves its whole component from nothing. So does a solve whose rounds' shares were
// not rising (a rounding may make a round's share a hair below the one before; then "the rounds
// below `cut`" is not a prefix), which marks every resource it solved.
//
// solve_levels() first tries solve_propagate() (sim/network/flow_propagate.cpp), which follows
// only the resources whose own rounds move; the regions below are its fallback.
#include "sim/network/flow_model.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace collsim::net {
namespace {
constexpr double kWhole = -std::numeric_limits<double>::infinity();  // a cut below every level: solve whole
}  // namespace

void FlowModel::forget_levels(const topo::Route& route) {
  for (auto r : route.resources) level_[r].ok = false;
}

void FlowModel::record_alone(const topo::Route& route) {
  // Its component is its one class of one flow: one round at the smallest capacity, C / 1, which
  // takes the share once from each resource (settle()). A bottleneck that is not that double (it
  // should be) is not vouched for: the levels are dropped instead.
  double share = std::numeric_limits<double>::infinity();
  for (auto r : route.resources)
    share = std::min(share, MaxMinSolver::fair_share(level_[r].capacity, 1));
  if (share != static_cast<double>(route.bottleneck.bits_per_s)) {
    forget_levels(route);
    return;
  }
  for (auto r : route.resources) {
    level_[r].history.assign(1, Level{share, level_[r].capacity - share, 1});
    level_[r].solved_total = 1;
    level_[r].ok = true;
  }
}

void FlowModel::record_emptied(const topo::Route& route) {
  // A resource no class is on has no rounds: what a solve of nothing records.
  for (auto r : route.resources) {
    if (!resource_[r].classes.empty()) {
      level_[r].ok = false;
      continue;
    }
    level_[r].history.clear();
    level_[r].solved_total = 0;
    level_[r].ok = true;
  }
}

bool FlowModel::lowest_cut(std::uint32_t r, double& cut) const {
  // Every state the levels record below `cut` holds from its level until the next one's round.
  if (!level_[r].ok) return false;
  const auto& levels = level_[r].history;
  const std::int64_t old_total = static_cast<std::int64_t>(level_[r].solved_total);
  const std::int64_t new_total = old_total + level_[r].delta;
  double left = level_[r].capacity;
  std::int64_t fixed = 0;
  for (std::size_t i = 0;; ++i) {
    const std::int64_t old_open = old_total - fixed, new_open = new_total - fixed;
    if (old_open < 0 || new_open < 0) return false;  // levels that do not add up: never trusted
    // The solver's own expression, so the same double.
    if (old_open > 0) cut = std::min(cut, MaxMinSolver::fair_share(left, static_cast<std::uint64_t>(old_open)));
    if (new_open > 0) cut = std::min(cut, MaxMinSolver::fair_share(left, static_cast<std::uint64_t>(new_open)));
    if (i == levels.size() || levels[i].share >= cut) break;
    left = levels[i].left;
    fixed += static_cast<std::int64_t>(levels[i].fixed);
  }
  return true;
}

void FlowModel::join_regions(std::uint32_t a, std::uint32_t b) {
  a = region_root(a);
  b = region_root(b);
  if (a == b) return;
  if (b < a) std::swap(a, b);
  regions_[b].parent = a;
  regions_[a].cut = std::min(regions_[a].cut, regions_[b].cut);
  regions_[a].seeds.insert(regions_[a].seeds.end(), regions_[b].seeds.begin(), regions_[b].seeds.end());
  regions_[b].seeds.clear();
}

std::uint32_t FlowModel::region_root(std::uint32_t g) {
  while (regions_[g].parent != g) {
    regions_[g].parent = regions_[regions_[g].parent].parent;
    g = regions_[g].parent;
  }
  return g;
}

bool FlowModel::walk_region(std::uint32_t region) {
  // Breadth-first from the region's changed resources through the classes not fixed below its
  // level (or changed). Meeting a resource another region walked, or another region's change,
  // joins the two (at the lower level); a resource whose levels are not to be trusted drops the
  // level (the whole component). Either way the walks are done again; false then.
  Region& me = regions_[region];
  me.resources.clear();
  me.classes.clear();
  walk_.clear();
  bool apart = true;
  const auto reach = [&](std::uint32_t r) {
    ResourceState& state = resource_[r];
    if (state.seen == stamp_) {
      if (owner_[r] != region) {
        join_.emplace_back(region, owner_[r]);
        apart = false;
      }
      return;
    }
    if (state.resized == resized_stamp_ && region_root(seed_region_[r]) != region) {
      join_.emplace_back(region, region_root(seed_region_[r]));
      apart = false;
      return;
    }
    state.seen = stamp_;
    owner_[r] = region;
    me.resources.push_back(r);
    walk_.push_back(r);
  };
  for (const std::uint32_t r : me.seeds) reach(r);
  for (std::size_t i = 0; i < walk_.size(); ++i) {
    const std::uint32_t r = walk_[i];
    if (me.cut != kWhole && !level_[r].ok) {
      me.cut = kWhole;
      return false;
    }
    for (const std::uint32_t gi : resource_[r].classes) {
      if (seen_group_[gi] == stamp_) continue;
      const Group& g = groups_[gi];
      if (!(g.size != g.solved_size || g.rate >= me.cut)) continue;
      seen_group_[gi] = stamp_;
      me.classes.push_back(gi);
      for (auto r2 : g.route->resources) reach(r2);
    }
  }
  return apart;
}

void FlowModel::solve_levels() {
  if (propagate_ && solve_propagate()) return;
  // The changed classes, grouped where they share a resource, and the change of each resource's
  // flow count.
  ++stamp_;
  resized_stamp_ = stamp_;
  resized_.clear();
  regions_used_ = 0;  // regions_ keeps its elements' buffers from flush to flush
  for (const std::uint32_t gi : touched_) {
    const Group& g = groups_[gi];
    if (g.size == g.solved_size) continue;
    const auto region = regions_used_++;
    if (region == regions_.size()) regions_.emplace_back();
    Region& fresh = regions_[region];
    fresh.parent = region;
    fresh.cut = g.solved_size > 0 ? g.rate : std::numeric_limits<double>::infinity();
    fresh.seeds.clear();
    fresh.resources.clear();
    fresh.classes.clear();
    for (auto r : g.route->resources) {
      if (resource_[r].resized != stamp_) {
        resource_[r].resized = stamp_;
        resized_.push_back(r);
        level_[r].delta = 0;
        seed_region_[r] = region;
      } else {
        join_regions(seed_region_[r], region);
      }
      level_[r].delta += static_cast<std::int64_t>(g.size) - static_cast<std::int64_t>(g.solved_size);
    }
  }
  if (resized_.empty()) return;
  // Each group's level: the lowest its changed resources' levels allow.
  for (const std::uint32_t r : resized_) {
    Region& region = regions_[region_root(seed_region_[r])];
    region.seeds.push_back(r);
    if (region.cut != kWhole && !lowest_cut(r, region.cut)) region.cut = kWhole;
  }
  // Walk every group; where walks met (or one dropped its level), those regions let go of what
  // they reached, join, and walk again, until the walks are apart. Regions apart keep their walk.
  ++stamp_;
  redo_.clear();
  for (std::uint32_t i = 0; i < regions_used_; ++i)
    if (regions_[i].parent == i) redo_.push_back(i);
  while (!redo_.empty()) {
    join_.clear();
    failed_.clear();
    for (const std::uint32_t i : redo_)
      if (regions_[i].parent == i && !walk_region(i)) failed_.push_back(i);
    for (const auto& [x, y] : join_) failed_.push_back(y);
    for (const std::uint32_t i : failed_) {
      for (const std::uint32_t r : regions_[i].resources) resource_[r].seen = 0;
      for (const std::uint32_t gi : regions_[i].classes) seen_group_[gi] = 0;
      regions_[i].resources.clear();
      regions_[i].classes.clear();
    }
    for (const auto& [x, y] : join_) join_regions(x, y);
    redo_.clear();
    for (const std::uint32_t i : failed_) redo_.push_back(region_root(i));
    std::sort(redo_.begin(), redo_.end());
    redo_.erase(std::unique(redo_.begin(), redo_.end()), redo_.end());
  }

  for (std::uint32_t i = 0; i < regions_used_; ++i) {
    if (regions_[i].parent != i) continue;
    const Region& region = regions_[i];
    const double cut = region.cut;
    ++level_stats_.solves;
    level_stats_.resumed += cut != kWhole;
    level_stats_.classes += region.classes.size();
    // The resumed problem: each resource with what its levels below `cut` left of it.
    solver_.clear();
    for (const std::uint32_t r : region.resources) {
      auto& levels = level_[r].history;
      const auto keep = cut == kWhole ? levels.begin()
                                     : std::lower_bound(levels.begin(), levels.end(), cut,
                                                        [](const Level& l, double c) { return l.share < c; });
      levels.erase(keep, levels.end());
      const double left = levels.empty() ? level_[r].capacity : levels.back().left;
      resource_[r].solver_index = solver_.add_resource_left(left);
      if (cut == kWhole) {
        std::uint64_t total = 0;
        for (const std::uint32_t gi : resource_[r].classes) total += groups_[gi].size;
        level_[r].solved_total = total;
        level_[r].ok = true;
      } else if (resource_[r].resized == resized_stamp_) {
        LevelState& state = level_[r];
        state.solved_total = static_cast<std::uint64_t>(static_cast<std::int64_t>(state.solved_total) + state.delta);
      }
    }
    for (const std::uint32_t gi : region.classes) {
      flow_resources_.clear();
      for (auto r : groups_[gi].route->resources) flow_resources_.push_back(resource_[r].solver_index);
      solver_.add_flow_over(flow_resources_, groups_[gi].size);
    }
    settled_.clear();
    solver_.record_rounds(&settled_);
    solver_.solve_into(rates_);
    solver_.record_rounds(nullptr);
    for (std::size_t k = 0; k < region.classes.size(); ++k) take_rate(region.classes[k], rates_[k]);
    // The new rounds, appended to their resources' levels; shares that do not rise leave levels
    // that cannot be cut by share, so the region is re-solved from nothing at its next change.
    bool rising = true;
    for (std::size_t k = 0; k < settled_.size(); ++k) {
      if (k > 0 && settled_[k].share < settled_[k - 1].share) rising = false;
      const std::uint32_t r = region.resources[settled_[k].resource];
      level_[r].history.push_back(Level{settled_[k].share, settled_[k].left, settled_[k].fixed});
    }
    if (!rising)
      for (const std::uint32_t r : region.resources) level_[r].ok = false;
  }
}

}  // namespace collsim::net
