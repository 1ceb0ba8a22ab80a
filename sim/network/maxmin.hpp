// Max-min fair sharing of link capacities among flows (the SimGrid/ASTRA-sim analytical family).
//
// Given resources with capacities C_r and flows that each cross a set of resources, find rates
// x_f such that sum over flows crossing r of x_f <= C_r for every r, and no flow's rate can grow
// without lowering a flow whose rate is no larger (max-min fairness). Solved by progressive
// filling: the resource whose remaining capacity split among its unfrozen flows is smallest fixes
// those flows' rates at that share; repeat until every flow is fixed (Bertsekas & Gallager, "Data
// Networks", section 6.5.2).
#pragma once

#include <cstdint>
#include <vector>

namespace collsim::net {

/// A max-min problem: add resources and flows, then solve(). Rates are in the capacities' unit.
class MaxMinSolver {
 public:
  /// Adds a resource of capacity `capacity` (> 0); returns its index.
  std::uint32_t add_resource(double capacity);
  /// Adds a flow crossing `resources` (indices from add_resource; may be empty: such a flow is
  /// unconstrained and gets an infinite rate); returns its index.
  std::uint32_t add_flow(std::vector<std::uint32_t> resources);
  /// The max-min fair rate of every flow, by flow index.
  [[nodiscard]] std::vector<double> solve() const;

 private:
  std::vector<double> capacity_;
  std::vector<std::vector<std::uint32_t>> flows_;
};

}  // namespace collsim::net
