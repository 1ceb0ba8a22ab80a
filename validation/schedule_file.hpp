// Loading a schedule file and proving it computes its collective before anything runs it.
#pragma once

#include <filesystem>
#include <string_view>

#include "sim/schedule/json_io.hpp"

namespace collsim::validation {

/// Checks a schedule read from `where` with the symbolic replay (verify_symbolic), as built-in
/// schedules are checked. Throws sched::ScheduleFileError "where: the schedule does not compute
/// allreduce: rank 1 chunk 2: holds A2+B2 but allreduce needs A2+B2+C2" (or the op that reads
/// undefined data, or the chunk table that does not fit the collective).
void verify_loaded_schedule(const sched::Schedule& schedule, std::string_view where);

/// parse_schedule_json + verify_loaded_schedule. Throws sched::ScheduleFileError.
[[nodiscard]] sched::Schedule parse_verified_schedule(std::string_view text, std::string_view where);

/// load_schedule_file + verify_loaded_schedule. Throws sched::ScheduleFileError.
[[nodiscard]] sched::Schedule load_verified_schedule(const std::filesystem::path& path);

}  // namespace collsim::validation
