// Max-min fair sharing of link capacities among flows (the SimGrid/ASTRA-sim analytical family).
//
// Given resources with capacities C_r and flows that each cross a set of resources, find rates
// x_f such that sum over flows crossing r of x_f <= C_r for every r, and no flow's rate can grow
// without lowering a flow whose rate is no larger (max-min fairness). Solved by progressive
// filling: the resource whose remaining capacity split among its unfrozen flows is smallest fixes
// those flows' rates at that share; repeat until every flow is fixed (Bertsekas & Gallager, "Data
// Networks", section 6.5.2).
//
// The flow model solves one problem per flush where a class changed its size, so the solver keeps
// its buffers between problems (clear() keeps their capacity): no allocation per event once warm.
// After a few plain rounds (each a scan of every resource and class) the bottleneck comes from a
// heap of fair shares that only the resources a round touched refresh, so a system of many levels
// (an all-to-all through spines) costs O((resources + crossings) log resources), not rounds x
// (resources + classes); every double is the plain rounds' (solve_by_rounds, tested bit for bit).
// Flows that cross the same resources always get the same rate, so the model adds them as one
// class with a multiplicity (24 channels between two GPUs are one class of 24): the rounds then
// cost O(resources + classes), not O(flows). A class of k flows gives exactly the doubles k single
// flows would (see solve_with), so grouping never moves a simulated time.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace collsim::net {

/// A max-min problem: add resources and flows, then solve(). Rates are in the capacities' unit.
class MaxMinSolver {
 public:
  /// Adds a resource of capacity `capacity` (> 0); returns its index.
  std::uint32_t add_resource(double capacity);
  /// Adds a resource with `left` (finite; rounding may leave it a hair below 0) of its capacity
  /// still to give: a problem resumed part way through its rounds (FlowModel's re-solve from a
  /// level on). Returns its index.
  std::uint32_t add_resource_left(double left);
  /// One round's bookkeeping on one resource, as settle() did it: the round's share, what is
  /// left of the resource after it (taken even where the round closes the resource, as it would
  /// be were another flow still on it) and how many flows (of weight 1) the round fixed on it.
  struct Settled {
    std::uint32_t resource;
    double share;
    double left;
    std::uint64_t fixed;
  };
  /// A resource's fair share in a round: what is left over its unfixed flows of weight 1 plus the
  /// summed weights of its weighted ones. The one expression every round and FlowModel's levels
  /// use, so that a share computed outside the solver is the solver's double.
  [[nodiscard]] static double fair_share(double left, std::uint64_t unfrozen, double unfrozen_weight = 0.0) {
    return left / (static_cast<double>(unfrozen) + unfrozen_weight);
  }
  /// With `out` (null: off), every solve appends one Settled per resource a round fixed flows on,
  /// round by round in the order of the rounds (resources of one round in no set order).
  void record_rounds(std::vector<Settled>* out) noexcept { record_ = out; }
  /// Adds a flow crossing `resources` (indices from add_resource; may be empty: such a flow is
  /// unconstrained and gets an infinite rate); returns its index.
  std::uint32_t add_flow(std::vector<std::uint32_t> resources) { return add_flow_over(resources); }
  /// The same without taking a vector (no allocation once the solver is warm); with `count` > 1,
  /// a class of `count` flows crossing the same resources, which all get the one rate returned at
  /// its index (count 0: a class with no flow, ignored, rate infinity).
  /// With `weights` (one per resource, each in (0, 1]; empty: all 1), the flow uses weights[i] of
  /// its rate on resources[i]: a flow split evenly over k paths (sprayed) uses 1/k of each path's
  /// own links. Weighted max-min: a resource's fair share is what is left divided by the summed
  /// weights of its unfrozen flows. Flows of weight 1 are computed exactly as without weights.
  std::uint32_t add_flow_over(std::span<const std::uint32_t> resources, std::uint32_t count = 1,
                              std::span<const double> weights = {});
  /// The max-min fair rate of every flow (or class), by flow index.
  [[nodiscard]] std::vector<double> solve() const;
  /// The same by the plain rounds (each round scans every resource and every unfixed class): the
  /// reference solve() is tested against, bit for bit.
  [[nodiscard]] std::vector<double> solve_by_rounds() const;
  /// The same into `rate` (resized to the flow count), reusing the solver's scratch buffers.
  void solve_into(std::vector<double>& rate);
  /// How many plain rounds solve() runs before its heap takes over (default 4: most systems are
  /// settled by then, and the scans cost less than building the heap); the tests set 0 to check
  /// the heap from the first round.
  void set_plain_rounds(int rounds) noexcept { plain_rounds_ = rounds; }
  /// Forgets every resource and flow, keeping the buffers' capacity.
  void clear() noexcept;

 private:
  std::span<const std::uint32_t> flow(std::size_t f) const {
    return std::span<const std::uint32_t>(flow_resources_).subspan(flow_offsets_[f], flow_offsets_[f + 1] - flow_offsets_[f]);
  }
  struct Scratch {
    std::vector<double> left, share;       // by resource: capacity not yet given, its fair share this round
    std::vector<std::uint64_t> unfrozen;   // flows (not classes) of weight 1 not yet fixed, by resource
    std::vector<std::uint64_t> fixed_now;  // flows of weight 1 fixed in this round, by resource
    std::vector<double> unfrozen_weight;   // summed weights of the weighted flows not yet fixed
    std::vector<std::uint64_t> unfrozen_weighted;  // how many weighted flows that is
    std::vector<double> fixed_weight;      // summed weights of the weighted flows fixed this round
    std::vector<char> bottleneck;
    std::vector<std::uint32_t> active;     // classes not yet fixed
    // The heap's rounds (solve_with): classes by resource (CSR), the bottleneck heap, a round's
    // classes and the resources they touched.
    std::vector<std::uint32_t> by_resource_offsets, by_resource;
    std::vector<std::pair<double, std::uint32_t>> heap;  // (fair share, resource), smallest on top
    std::vector<char> frozen;
    std::vector<std::uint32_t> fixing, touched;
    /// Whether resource `r` still has unfrozen flows.
    [[nodiscard]] bool open(std::size_t r) const { return unfrozen[r] > 0 || unfrozen_weighted[r] > 0; }
    /// Its fair share: what is left divided by its unfrozen flows' summed weights (weight-1 flows
    /// counted exactly).
    [[nodiscard]] double fair_share(std::size_t r) const {
      return MaxMinSolver::fair_share(left[r], unfrozen[r], unfrozen_weight[r]);
    }
  };
  /// The weight of class `f` on its i-th resource (1 without sprayed flows, the usual case).
  [[nodiscard]] double weight(std::size_t f, std::size_t i) const {
    return weighted_ ? flow_weights_[flow_offsets_[f] + i] : 1.0;
  }
  /// Progressive filling with the bottleneck found from a heap of fair shares, refreshed only where
  /// a round fixed classes: O((resources + crossings) log resources) instead of rounds x
  /// (resources + classes), with every double computed as solve_by_rounds computes it.
  void solve_with(std::vector<double>& rate, Scratch& s) const;
  /// The plain rounds.
  void solve_rounds(std::vector<double>& rate, Scratch& s) const;
  /// One plain round: the smallest fair share over every open resource fixes every unfixed class
  /// that crosses a resource at it.
  void plain_round(std::vector<double>& rate, Scratch& s) const;
  /// solve_with's and solve_rounds' common start: rates infinite, capacities left, unfrozen counts.
  void start_solve(std::vector<double>& rate, Scratch& s) const;
  /// Fixes class `f` at `share` on each of its resources' counts (one round's bookkeeping).
  void fix(std::uint32_t f, double share, std::vector<double>& rate, Scratch& s) const;
  /// Takes from resource `r` what the classes fixed on it this round use; returns whether it still
  /// has unfrozen classes.
  bool settle(std::uint32_t r, double share, Scratch& s) const;

  std::vector<double> capacity_;
  std::vector<std::uint32_t> flow_offsets_{0};  // CSR: flow f crosses flow_resources_[offsets[f] .. offsets[f+1])
  std::vector<std::uint32_t> flow_resources_;
  std::vector<std::uint32_t> flow_count_;  // flows in each class (1 for add_flow)
  std::vector<double> flow_weights_;       // parallel to flow_resources_
  bool weighted_ = false;                  // some weight is below 1: the solver reads the weights
  int plain_rounds_ = 4;
  std::vector<Settled>* record_ = nullptr;
  Scratch scratch_;
};

}  // namespace collsim::net
