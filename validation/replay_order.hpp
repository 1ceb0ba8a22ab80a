// The order in which a replay executes a schedule's ops: any order their dependencies allow.
//
// A schedule's deps are meant to capture every hazard on a (rank, chunk) slot (read after write,
// write after write, write after read; sim/schedule/builder.hpp). Then every topological order
// leaves every slot with the same history and so the same bits, and the engine, which starts an
// op as soon as its deps finish, may run them in any of those orders. Replaying in an order far
// from the program order therefore tests that the deps are sufficient, not only the program.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/schedule/schedule.hpp"

namespace collsim::validation {

/// Which topological order of the dependency graph a replay uses.
enum class ReplayOrder : std::uint8_t {
  Program,           ///< among the ready ops, the lowest id first: op id order for a built schedule
  LatestReadyFirst,  ///< among the ready ops, the highest id first: as far from program order as deps allow
};

/// Computes the replay order of `schedule`'s ops into `order` (Kahn's algorithm with a heap of the
/// ready ops, O(ops log ops + deps)). Returns a one-line problem instead when dep_offsets does not
/// match the op count, a dependency names an op that does not exist or the op itself, or the
/// dependencies form a cycle (naming one op on it).
[[nodiscard]] std::optional<std::string> replay_order(const sched::Schedule& schedule, ReplayOrder which,
                                                      std::vector<sched::OpId>& order);

}  // namespace collsim::validation
