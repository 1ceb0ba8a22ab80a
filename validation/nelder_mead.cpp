#include "validation/nelder_mead.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace collsim::validation {
namespace {

struct Vertex {
  std::vector<double> x;
  double value;
};

// a + t·(b - a)
std::vector<double> along(const std::vector<double>& a, const std::vector<double>& b, double t) {
  std::vector<double> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i] + t * (b[i] - a[i]);
  return out;
}

}  // namespace

SimplexResult nelder_mead(const std::function<double(std::span<const double>)>& f, std::vector<double> x0,
                          const SimplexOptions& o) {
  if (x0.empty()) throw std::invalid_argument("nelder_mead: expected at least one variable");
  const std::size_t n = x0.size();
  std::size_t evaluations = 0;
  const auto eval = [&](std::vector<double> x) {
    ++evaluations;
    const double v = f(x);
    return Vertex{std::move(x), v};
  };
  std::vector<Vertex> simplex;
  simplex.push_back(eval(x0));
  for (std::size_t i = 0; i < n; ++i) {
    auto x = x0;
    x[i] += o.initial_step;
    simplex.push_back(eval(std::move(x)));
  }
  // Ties keep the older vertex first (stable sort), so runs are reproducible.
  const auto order = [](const Vertex& a, const Vertex& b) { return a.value < b.value; };
  while (true) {
    std::stable_sort(simplex.begin(), simplex.end(), order);
    if (evaluations >= o.max_evaluations || simplex.back().value - simplex.front().value < o.tolerance) break;
    std::vector<double> centroid(n, 0.0);
    for (std::size_t v = 0; v < n; ++v)
      for (std::size_t i = 0; i < n; ++i) centroid[i] += simplex[v].x[i] / static_cast<double>(n);
    Vertex& worst = simplex.back();
    Vertex reflected = eval(along(worst.x, centroid, 2.0));
    if (reflected.value < simplex.front().value) {
      Vertex expanded = eval(along(worst.x, centroid, 3.0));
      worst = expanded.value < reflected.value ? std::move(expanded) : std::move(reflected);
    } else if (reflected.value < simplex[n - 1].value) {
      worst = std::move(reflected);
    } else {
      // Contract towards the better of the worst point and its reflection.
      const bool outside = reflected.value < worst.value;
      Vertex contracted = eval(along(worst.x, centroid, outside ? 1.5 : 0.5));
      if (contracted.value < std::min(worst.value, reflected.value)) {
        worst = std::move(contracted);
      } else {
        for (std::size_t v = 1; v <= n; ++v) simplex[v] = eval(along(simplex[0].x, simplex[v].x, 0.5));
      }
    }
  }
  return SimplexResult{simplex.front().x, simplex.front().value, evaluations};
}

}  // namespace collsim::validation
