// FlowModel's re-solve by propagation (issue 18 item 4): the last solve's rounds are replayed level
// by level, and only the resources whose own rounds a change moves are solved again, with the
// doubles the whole solve gives. Where it cannot vouch for that, solve_levels() does the flush.
//
// Why it is exact. Progressive filling (MaxMinSolver) fixes classes in rounds of rising share s;
// a resource's state between rounds is (what is left, flows not yet fixed), its fair share that
// state's left / open, and a round fixes every unfixed class that crosses a resource whose fair
// share is s. Call a resource clean at s when the rounds below s subtracted from it exactly what
// its recorded levels (the last solve's rounds on it) say: then its state before the round at s,
// and so whether it is a bottleneck there, is read from its levels (with its change of flow count,
// for a resource of a resized class), and a class whose resources all stayed clean up to its old
// rate is fixed at that rate again: its old bottleneck is clean there. So the new solve differs
// from the old one only through classes fixed at another share than before (or resized), and a
// clean resource turns dirty exactly when such a class crosses it: one fixed now at a share other
// than its old rate, or one whose old rate comes without it being fixed. From then on the dirty
// resource's state is kept here, round by round, and its unfixed classes are followed ("in play"):
// each is fixed where a dirty resource of it is a bottleneck, or at its old rate where a clean
// resource of it still is one there. A resized resource stays clean below the lowest share, old or
// new, that its recorded states take and below every resized class's old rate on it (lowest_cut),
// where it is a bottleneck in neither solve; there it turns dirty.
//
// The rounds' shares are visited in rising order from a heap of the dirty resources' fair shares,
// the followed classes' old rates and the resized resources' cuts; ties are one round, found to a
// fixed point (a resource turned dirty within a round is read in its state before the round, the
// old one). Each dirty resource subtracts a round's share once per flow fixed on it, as settle()
// does, and records the round as a level. Tree all-reduce across hosts shows why this pays: every
// class of a balanced tree sits at C/3 on the hosts' uplinks, and a chunk that joins one uplink
// (C/4 there) moves that uplink's classes only; the receivers' links keep their other classes at
// C/3 from clean senders, so the walk stops one hop away instead of re-solving the tree.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "sim/network/flow_model.hpp"

namespace collsim::net {
namespace {
enum : std::uint32_t { kActivate = 0, kResource = 1, kClass = 2 };
// The heap's order (smallest share on top); a type, not a function, so the heap calls inline.
struct Later {
  bool operator()(const FlowModel::PropEntry& a, const FlowModel::PropEntry& b) const noexcept {
    if (a.share != b.share) return a.share > b.share;
    if (a.kind != b.kind) return a.kind > b.kind;
    return a.id > b.id;
  }
};
constexpr Later later{};
}  // namespace

bool FlowModel::state_before(std::uint32_t r, double s, std::int64_t delta, double& left, std::int64_t& open,
                             std::uint32_t& keep) const {
  const auto& levels = level_[r].history;
  left = level_[r].capacity;
  open = static_cast<std::int64_t>(level_[r].solved_total) + delta;
  keep = 0;
  for (; keep < levels.size() && levels[keep].share < s; ++keep) {
    left = levels[keep].left;
    open -= static_cast<std::int64_t>(levels[keep].fixed);
  }
  return open >= 0;
}

void FlowModel::prop_push(double share, std::uint32_t kind, std::uint32_t id) {
  prop_heap_.push_back(PropEntry{share, kind, id});
  std::push_heap(prop_heap_.begin(), prop_heap_.end(), later);
}

bool FlowModel::prop_dirty(std::uint32_t r, double s) {
  PropResource& p = prop_res_[r];
  if (p.dirty == prop_stamp_) return true;
  if (!level_[r].ok) return false;
  const std::int64_t delta = p.resized == prop_stamp_ ? p.delta : 0;
  if (!state_before(r, s, delta, p.left, p.open, p.keep)) return false;
  p.dirty = prop_stamp_;
  p.fixed_now = 0;
  prop_dirty_.push_back(r);
  prop_newly_.push_back(r);
  return true;
}

bool FlowModel::prop_bottleneck(std::uint32_t r, double s) const {
  const PropResource& p = prop_res_[r];
  double left = p.left;
  std::int64_t open = p.open;
  if (p.dirty != prop_stamp_) {
    std::uint32_t keep = 0;
    if (!state_before(r, s, p.resized == prop_stamp_ ? p.delta : 0, left, open, keep)) return false;
  }
  return open > 0 && MaxMinSolver::fair_share(left, static_cast<std::uint64_t>(open)) <= s;
}

bool FlowModel::solve_propagate() {
  if (prop_res_.size() < resource_.size()) prop_res_.resize(resource_.size());
  if (prop_class_.size() < groups_.size()) prop_class_.resize(groups_.size());
  if (prop_stamp_ == std::numeric_limits<std::uint32_t>::max() || prop_round_ >= (1U << 31)) {
    // Before a stamp wraps (a solve has far fewer than 2^31 rounds), every old mark is cleared so
    // that none reads as this solve's or this round's.
    std::fill(prop_res_.begin(), prop_res_.end(), PropResource{});
    std::fill(prop_class_.begin(), prop_class_.end(), PropClass{});
    prop_round_ = 0;
    prop_stamp_ = 0;
  }
  ++prop_stamp_;
  const std::uint32_t stamp = prop_stamp_;
  prop_heap_.clear();
  prop_dirty_.clear();
  prop_play_.clear();
  prop_levels_.clear();
  prop_resized_.clear();
  const double inf = std::numeric_limits<double>::infinity();
  std::uint64_t resized_classes = 0;
  // The resized classes and each resized resource's change of flow count.
  for (const std::uint32_t gi : touched_) {
    const Group& g = groups_[gi];
    if (g.size == g.solved_size) continue;
    prop_class_[gi].resized = stamp;
    ++resized_classes;
    for (auto r : g.route->resources) {
      PropResource& p = prop_res_[r];
      if (p.resized != stamp) {
        p.resized = stamp;
        p.delta = 0;
        p.cut = inf;
        prop_resized_.push_back(r);
      }
      p.delta += static_cast<std::int64_t>(g.size) - static_cast<std::int64_t>(g.solved_size);
      if (g.solved_size > 0) p.cut = std::min(p.cut, g.rate);
    }
  }
  if (prop_resized_.empty()) return true;
  for (const std::uint32_t r : prop_resized_) {
    PropResource& p = prop_res_[r];
    level_[r].delta = p.delta;
    if (!lowest_cut(r, p.cut)) return false;
    if (p.cut != inf) prop_push(p.cut, kActivate, r);
  }

  double last = -inf;
  while (!prop_heap_.empty()) {
    const double s = prop_heap_.front().share;
    if (s < last) return false;  // a rounding made a round's share fall: levels cut by share would not be a prefix
    last = s;
    const std::uint32_t round = ++prop_round_;
    prop_newly_.clear();
    prop_bottlenecks_.clear();
    prop_candidates_.clear();
    prop_fix_.clear();
    while (!prop_heap_.empty() && prop_heap_.front().share <= s) {
      std::pop_heap(prop_heap_.begin(), prop_heap_.end(), later);
      const PropEntry e = prop_heap_.back();
      prop_heap_.pop_back();
      if (e.kind == kActivate) {
        if (!prop_dirty(e.id, s)) return false;
      } else if (e.kind == kResource) {
        PropResource& p = prop_res_[e.id];
        if (p.bottleneck != round && p.open > 0 &&
            MaxMinSolver::fair_share(p.left, static_cast<std::uint64_t>(p.open)) == s) {
          p.bottleneck = round;
          prop_bottlenecks_.push_back(e.id);
        }
      } else if (prop_class_[e.id].fixed != stamp) {
        prop_candidates_.push_back(e.id);
      }
    }
    // The round, to a fixed point: resources turned dirty bring their classes into play and may be
    // bottlenecks; a class fixed off its old rate, or not fixed at it, turns its resources dirty.
    std::size_t ni = 0, bi = 0, ci = 0, fi = 0;
    for (;;) {
      if (ni < prop_newly_.size()) {
        const std::uint32_t r = prop_newly_[ni++];
        for (const std::uint32_t gi : resource_[r].classes) {
          PropClass& c = prop_class_[gi];
          if (c.play == stamp) continue;
          const bool resized = c.resized == stamp;
          const double old = groups_[gi].rate;
          if (!resized && old < s) continue;  // fixed below s by clean rounds, as before
          c.play = stamp;
          prop_play_.push_back(gi);
          if (resized) continue;  // fixed only where a dirty resource of it is a bottleneck
          if (old == s) {
            prop_candidates_.push_back(gi);
          } else {
            prop_push(old, kClass, gi);
          }
        }
        PropResource& p = prop_res_[r];
        if (p.open > 0) {
          const double share = MaxMinSolver::fair_share(p.left, static_cast<std::uint64_t>(p.open));
          if (share < s) return false;
          if (share == s) {
            p.bottleneck = round;
            prop_bottlenecks_.push_back(r);
          } else {
            prop_push(share, kResource, r);
          }
        }
      } else if (bi < prop_bottlenecks_.size()) {
        const std::uint32_t r = prop_bottlenecks_[bi++];
        for (const std::uint32_t gi : resource_[r].classes) {
          PropClass& c = prop_class_[gi];
          if (c.play != stamp || c.fixed == stamp || c.round == round) continue;
          c.round = round;
          prop_fix_.push_back(gi);
        }
      } else if (ci < prop_candidates_.size()) {
        const std::uint32_t gi = prop_candidates_[ci++];
        PropClass& c = prop_class_[gi];
        if (c.round == round || c.fixed == stamp) continue;
        const auto& resources = groups_[gi].route->resources;
        bool fixed_here = false;
        for (auto r : resources) {
          if (prop_res_[r].dirty != stamp && !level_[r].ok) return false;
          if (prop_bottleneck(r, s)) {
            fixed_here = true;
            break;
          }
        }
        if (fixed_here) {
          c.round = round;
          prop_fix_.push_back(gi);
        } else {
          for (auto r : resources)
            if (!prop_dirty(r, s)) return false;
        }
      } else if (fi < prop_fix_.size()) {
        const std::uint32_t gi = prop_fix_[fi++];
        if (prop_class_[gi].resized == stamp || groups_[gi].rate != s)
          for (auto r : groups_[gi].route->resources)
            if (!prop_dirty(r, s)) return false;
      } else {
        break;
      }
    }
    // The round's bookkeeping on the dirty resources, as settle() does it.
    prop_touched_.clear();
    for (const std::uint32_t gi : prop_fix_) {
      PropClass& c = prop_class_[gi];
      c.fixed = stamp;
      c.rate = s;
      const std::uint32_t size = groups_[gi].size;
      for (auto r : groups_[gi].route->resources) {
        PropResource& p = prop_res_[r];
        if (p.dirty != stamp) continue;
        p.open -= size;
        p.fixed_now += size;
        if (p.touched != round) {
          p.touched = round;
          prop_touched_.push_back(r);
        }
      }
    }
    for (const std::uint32_t r : prop_touched_) {
      PropResource& p = prop_res_[r];
      if (p.open < 0) return false;
      double left = p.left;
      for (std::uint64_t k = 0; k < p.fixed_now; ++k) left -= s;
      p.left = left;
      prop_levels_.emplace_back(r, Level{s, left, p.fixed_now});
      p.fixed_now = 0;
      if (p.open > 0) prop_push(MaxMinSolver::fair_share(left, static_cast<std::uint64_t>(p.open)), kResource, r);
    }
  }
  for (const std::uint32_t gi : prop_play_)
    if (prop_class_[gi].fixed != stamp) return false;

  // Exact: the dirty resources' levels below where they turned dirty, then their new rounds.
  for (const std::uint32_t r : prop_dirty_) level_[r].history.resize(prop_res_[r].keep);
  for (const auto& [r, level] : prop_levels_) level_[r].history.push_back(level);
  for (const std::uint32_t r : prop_resized_) {
    const PropResource& p = prop_res_[r];
    level_[r].solved_total = static_cast<std::uint64_t>(static_cast<std::int64_t>(level_[r].solved_total) + p.delta);
    if (p.dirty != stamp) level_[r].ok = false;  // never reached its cut: no level says where its change went
  }
  ++level_stats_.solves;
  ++level_stats_.resumed;
  ++level_stats_.propagated;
  level_stats_.resized += resized_classes;
  level_stats_.classes += prop_play_.size();
  for (const std::uint32_t gi : prop_play_) take_rate(gi, prop_class_[gi].rate);
  return true;
}

}  // namespace collsim::net
