#include "validation/schedule_file.hpp"

#include <fmt/format.h>

#include "validation/symbolic_replay.hpp"

namespace collsim::validation {

void verify_loaded_schedule(const sched::Schedule& schedule, std::string_view where) {
  if (auto problem = verify_symbolic(schedule))
    throw sched::ScheduleFileError(fmt::format("{}: the schedule does not compute {}: {}", where,
                                               sched::collective_name(schedule.header.collective), *problem));
}

sched::Schedule parse_verified_schedule(std::string_view text, std::string_view where) {
  sched::Schedule schedule = sched::parse_schedule_json(text, where);
  verify_loaded_schedule(schedule, where);
  return schedule;
}

sched::Schedule load_verified_schedule(const std::filesystem::path& path) {
  sched::Schedule schedule = sched::load_schedule_file(path);
  verify_loaded_schedule(schedule, path.string());
  return schedule;
}

}  // namespace collsim::validation
