// The algorithms of a registry as a front end lists them (`collsim algorithms --format json`,
// `collsim.algorithms()` in Python).
#pragma once

#include <string>

#include "algorithms/registry.hpp"

namespace collsim::run {

/// Every algorithm of `registry` in registration order, as a pretty-printed JSON array
/// (newline-terminated) of objects with the keys algorithm, collective, steps,
/// bytes_sent_per_rank_max, options, closed_form and description (the formulas as text).
[[nodiscard]] std::string algorithms_json(const algo::AlgorithmRegistry& registry);

}  // namespace collsim::run
