// Fuzzes the schedule reader (sim/schedule/json_read.cpp): a schedule file is either read or refused
// with ScheduleFileError. A schedule read is written out (`--save-schedule`'s form) and reads back
// equal, and its dependencies point to earlier ops, as the IR promises.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "sim/schedule/json_io.hpp"
#include "sim/schedule/schedule.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using collsim::fuzz::must_accept;
using collsim::fuzz::require;
using namespace collsim::sched;

void check_order(const Schedule& s) {
  require(s.dep_offsets.size() == s.ops.size() + 1, "one dependency range per op");
  for (OpId id = 0; id < s.ops.size(); ++id)
    for (OpId dep : s.deps_of(id)) require(dep < id, "every dependency of an op comes before it");
}

void check_round_trip(const Schedule& s) {
  std::ostringstream out;
  write_schedule_json(s, out);
  const std::string text = out.str();
  const Schedule again =
      must_accept<ScheduleFileError>([&] { return parse_schedule_json(text, "written"); }, "a written schedule reads");
  require(again == s, "a written schedule reads back equal");
}

}  // namespace

/// libFuzzer's entry point: the input as a schedule file.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const Schedule s = parse_schedule_json(collsim::fuzz::as_text(data, size), "fuzz");
    check_order(s);
    check_round_trip(s);
  } catch (const ScheduleFileError&) {
  }
  return 0;
}
