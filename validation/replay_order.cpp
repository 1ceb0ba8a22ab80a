#include "validation/replay_order.hpp"

#include <functional>
#include <queue>

#include <fmt/format.h>

namespace collsim::validation {
namespace {

template <class Compare>
void kahn(const sched::Schedule& s, const std::vector<std::uint32_t>& succ_offsets, const std::vector<sched::OpId>& succ,
          std::vector<std::uint32_t>& waiting, std::vector<sched::OpId>& order) {
  std::priority_queue<sched::OpId, std::vector<sched::OpId>, Compare> ready;
  for (sched::OpId id = 0; id < s.ops.size(); ++id)
    if (waiting[id] == 0) ready.push(id);
  while (!ready.empty()) {
    const sched::OpId id = ready.top();
    ready.pop();
    order.push_back(id);
    for (std::uint32_t k = succ_offsets[id]; k < succ_offsets[id + 1]; ++k)
      if (--waiting[succ[k]] == 0) ready.push(succ[k]);
  }
}

}  // namespace

std::optional<std::string> replay_order(const sched::Schedule& s, ReplayOrder which, std::vector<sched::OpId>& order) {
  order.clear();
  const std::size_t n = s.ops.size();
  if (s.dep_offsets.size() != n + 1 || s.dep_offsets.front() != 0 || s.dep_offsets.back() != s.deps.size())
    return fmt::format("the dependency table has {} offsets for {} ops and {} deps, expected {} offsets from 0 to {}",
                       s.dep_offsets.size(), n, s.deps.size(), n + 1, s.deps.size());
  std::vector<std::uint32_t> waiting(n, 0);
  std::vector<std::uint32_t> succ_offsets(n + 1, 0);
  for (sched::OpId id = 0; id < n; ++id) {
    if (s.dep_offsets[id + 1] < s.dep_offsets[id])
      return fmt::format("op {}: the dependency offsets decrease ({} then {})", id, s.dep_offsets[id], s.dep_offsets[id + 1]);
    for (const sched::OpId d : s.deps_of(id)) {
      if (d >= n) return fmt::format("op {} depends on op {}, which does not exist (ops 0..{})", id, d, n - 1);
      if (d == id) return fmt::format("op {} depends on itself", id);
      ++waiting[id];
      ++succ_offsets[d + 1];
    }
  }
  for (std::size_t i = 0; i < n; ++i) succ_offsets[i + 1] += succ_offsets[i];
  std::vector<sched::OpId> succ(s.deps.size());
  std::vector<std::uint32_t> fill(succ_offsets.begin(), succ_offsets.end() - 1);
  for (sched::OpId id = 0; id < n; ++id)
    for (const sched::OpId d : s.deps_of(id)) succ[fill[d]++] = id;

  order.reserve(n);
  if (which == ReplayOrder::Program)
    kahn<std::greater<>>(s, succ_offsets, succ, waiting, order);  // a min-heap: lowest id on top
  else
    kahn<std::less<>>(s, succ_offsets, succ, waiting, order);
  if (order.size() == n) return std::nullopt;
  for (sched::OpId id = 0; id < n; ++id)
    if (waiting[id] > 0)
      return fmt::format("the dependencies form a cycle: {} op(s) never become ready, the first being op {}",
                         n - order.size(), id);
  return "the dependencies form a cycle";  // unreachable: some op is left waiting
}

}  // namespace collsim::validation
