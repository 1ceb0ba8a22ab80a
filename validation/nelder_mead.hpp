// Nelder-Mead downhill simplex: minimises a function of a few real variables without derivatives,
// for fits whose objective is a simulation (collsim calibrate). Nelder & Mead, "A simplex method
// for function minimization", The Computer Journal 7(4), 1965, with the standard coefficients
// (reflection 1, expansion 2, contraction 1/2, shrink 1/2) as in Lagarias et al., "Convergence
// properties of the Nelder-Mead simplex method in low dimensions", SIAM J. Optim. 9(1), 1998.
// Deterministic: the same function and start give the same evaluations in the same order.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace collsim::validation {

/// How far to search.
struct SimplexOptions {
  double initial_step = 0.25;     ///< the start simplex: x0 and x0 + step·e_i for every i
  std::size_t max_evaluations = 200;  ///< checked before each iteration, which takes at most n + 2
  double tolerance = 1e-6;        ///< stop when the simplex's best and worst values differ by less
};

/// The best point found, its value, and how many evaluations it took.
struct SimplexResult {
  std::vector<double> x;
  double value = 0;
  std::size_t evaluations = 0;
};

/// Minimises `f` from `x0` (at least one variable). `f` may return +infinity for a point it
/// rejects. Throws std::invalid_argument for an empty x0.
SimplexResult nelder_mead(const std::function<double(std::span<const double>)>& f, std::vector<double> x0,
                          const SimplexOptions& options = {});

}  // namespace collsim::validation
