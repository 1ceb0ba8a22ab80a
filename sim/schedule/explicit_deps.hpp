// Dependencies given by hand (a schedule file's `deps`), checked against data flow.
//
// ScheduleBuilder infers dependencies from the (rank, chunk) slots ops touch, in program order.
// A file may instead list each op's dependencies. They are accepted when (1) every op comes after
// the ops it waits for (so op ids stay file indices and the file order is one order in which the
// ops can run), and (2) they order every two ops the inference orders, directly or through other
// ops: then every order the engine may pick computes what the file order computes, which is
// what the symbolic replay checks. Extra dependencies (to serialise ops on purpose) are allowed.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/schedule/schedule.hpp"

namespace collsim::sched {

/// What is wrong with explicit dependencies: the op (its index), the position in its dependency
/// list when one entry is to blame, and a sentence for people.
struct DepsProblem {
  OpId op = 0;
  std::optional<std::size_t> dep_index;
  std::string message;
};

/// Checks `deps` (deps[i]: the ops op i waits for, as written: each an existing op other than i,
/// no duplicates) for `inferred`, a schedule with the same ops whose dependencies were inferred by
/// ScheduleBuilder. Returns the first problem: a cycle (named op by op), else a dependency on a
/// later op, else a pair of ops the inference orders but `deps` leaves unordered; nullopt when the
/// deps are acceptable. Precondition: deps.size() == inferred.ops.size().
[[nodiscard]] std::optional<DepsProblem> check_explicit_deps(const Schedule& inferred,
                                                             std::span<const std::vector<OpId>> deps);

/// Replaces `schedule`'s dependencies with `deps` (each list sorted ascending here). Precondition:
/// check_explicit_deps(schedule, deps) found no problem. Throws std::length_error beyond 2^32-1 deps.
void set_deps(Schedule& schedule, std::span<std::vector<OpId>> deps);

}  // namespace collsim::sched
