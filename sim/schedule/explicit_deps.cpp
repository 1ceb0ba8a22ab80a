#include "sim/schedule/explicit_deps.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace collsim::sched {
namespace {

// A dependency on a later op; when the deps form a cycle, the cycle instead (it always holds a
// dependency on a later op, and is the more useful thing to report).
std::optional<DepsProblem> check_order(std::span<const std::vector<OpId>> deps) {
  const auto n = static_cast<OpId>(deps.size());
  std::optional<DepsProblem> forward;
  for (OpId i = 0; i < n && !forward; ++i)
    for (std::size_t k = 0; k < deps[i].size(); ++k)
      if (deps[i][k] > i) {
        forward = DepsProblem{i, k,
                              fmt::format("op {} depends on op {}, which comes later in the file; expected every op "
                                          "after the ops it depends on (the file order must be an order in which the "
                                          "ops can run)",
                                          i, deps[i][k])};
        break;
      }
  if (!forward) return std::nullopt;

  // Iterative depth-first search for a cycle (colors: 0 new, 1 on the stack, 2 done); a file may
  // hold millions of ops, so no recursion.
  std::vector<std::uint8_t> color(n, 0);
  std::vector<OpId> parent(n, 0);
  std::vector<std::pair<OpId, std::size_t>> stack;
  for (OpId root = 0; root < n; ++root) {
    if (color[root] != 0) continue;
    stack.emplace_back(root, 0);
    color[root] = 1;
    while (!stack.empty()) {
      const OpId v = stack.back().first;
      const std::size_t next = stack.back().second;
      if (next == deps[v].size()) {
        color[v] = 2;
        stack.pop_back();
        continue;
      }
      ++stack.back().second;
      const OpId w = deps[v][next];
      if (color[w] == 0) {
        color[w] = 1;
        parent[w] = v;
        stack.emplace_back(w, 0);
      } else if (color[w] == 1) {
        // v waits for w, and w waits (through the stack) for ... v.
        std::vector<OpId> cycle{v};
        for (OpId x = v; x != w; x = parent[x]) cycle.push_back(parent[x]);
        std::reverse(cycle.begin(), cycle.end());  // w, ..., v: each waits for the next, v for w
        std::string text;
        const std::size_t shown = std::min<std::size_t>(cycle.size(), 12);
        for (std::size_t k = 0; k < shown; ++k) text += fmt::format("op {} -> ", cycle[k]);
        if (cycle.size() > shown) text += "... -> ";
        text += fmt::format("op {}", cycle.front());
        return DepsProblem{
            cycle.front(), std::nullopt,
            fmt::format("the dependencies form a cycle ({}, each waiting for the next), expected none", text)};
      }
    }
  }
  return forward;
}

// Why op v must come after op u: the (rank, chunk) slot both touch.
std::string hazard(const Op& u, const Op& v, OpId ui, OpId vi) {
  if (u.dst == v.src && u.dst_chunk == v.src_chunk)
    return fmt::format("op {} sends chunk {} of rank {}, which op {} writes before it", vi, v.src_chunk, v.src, ui);
  if (u.dst == v.dst && u.dst_chunk == v.dst_chunk)
    return fmt::format("op {} writes chunk {} of rank {}, which op {} also writes before it", vi, v.dst_chunk, v.dst,
                       ui);
  return fmt::format("op {} writes chunk {} of rank {}, which op {} reads before it", vi, v.dst_chunk, v.dst, ui);
}

}  // namespace

std::optional<DepsProblem> check_explicit_deps(const Schedule& inferred, std::span<const std::vector<OpId>> deps) {
  if (auto problem = check_order(deps)) return problem;

  const auto n = static_cast<OpId>(deps.size());
  std::vector<std::vector<OpId>> sorted(deps.begin(), deps.end());
  for (auto& d : sorted) std::sort(d.begin(), d.end());
  // Bounds the search so that a pathological file fails instead of hanging; deps that list the
  // inferred ones directly (as saved files do) never search.
  std::uint64_t budget = std::uint64_t{1} << 28;
  std::vector<std::uint32_t> seen(n, 0);
  std::uint32_t epoch = 0;
  std::vector<OpId> stack;
  bool exhausted = false;
  // Does v wait for u, directly or through other ops? Ids are a topological order (checked
  // above), so the search never needs to enter ops below u.
  const auto waits_for = [&](OpId v, OpId u) {
    if (std::binary_search(sorted[v].begin(), sorted[v].end(), u)) return true;
    if (++epoch == 0) {
      std::fill(seen.begin(), seen.end(), 0);
      epoch = 1;
    }
    stack.assign(1, v);
    while (!stack.empty()) {
      const OpId w = stack.back();
      stack.pop_back();
      for (OpId d : sorted[w]) {
        if (d == u) return true;
        if (d < u || seen[d] == epoch) continue;
        seen[d] = epoch;
        if (--budget == 0) {
          exhausted = true;
          return true;
        }
        stack.push_back(d);
      }
    }
    return false;
  };
  for (OpId v = 0; v < n; ++v) {
    for (OpId u : inferred.deps_of(v)) {
      const bool ordered = waits_for(v, u);
      if (exhausted)
        return DepsProblem{v, std::nullopt,
                           "checking that the deps order every two ops that touch the same chunk of a rank took too "
                           "long; expected deps that list those ops directly (or no deps at all, to infer them)"};
      if (!ordered)
        return DepsProblem{v, std::nullopt,
                           fmt::format("{}, but op {} does not wait for op {} (directly or through other ops); "
                                       "expected deps that order every two ops that touch the same chunk of a rank, "
                                       "as the file order does",
                                       hazard(inferred.ops[u], inferred.ops[v], u, v), v, u)};
    }
  }
  return std::nullopt;
}

void set_deps(Schedule& schedule, std::span<std::vector<OpId>> deps) {
  std::vector<std::uint32_t> offsets{0};
  std::vector<OpId> flat;
  for (auto& d : deps) {
    std::sort(d.begin(), d.end());
    flat.insert(flat.end(), d.begin(), d.end());
    if (flat.size() > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("a schedule holds at most 2^32-1 dependencies");
    offsets.push_back(static_cast<std::uint32_t>(flat.size()));
  }
  schedule.dep_offsets = std::move(offsets);
  schedule.deps = std::move(flat);
}

}  // namespace collsim::sched
