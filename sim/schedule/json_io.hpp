// Schedules as JSON files, so that users can write their own algorithm without C++ and save what
// a built-in algorithm made (collsim simulate --save-schedule / --schedule).
//
// The format ("collsim-schedule-1") is documented by sim/schedule/schedule.schema.json and
// docs/algorithms.md ("Schedule files"). In short: a header (algorithm, collective, ranks, helpers, root, size_bytes,
// element_size_bytes), an optional chunk table (default: split_even(size_bytes, ranks,
// element_size_bytes) data chunks), optional phases, and `ops`,
// each {src, dst, chunk | src_chunk + dst_chunk, combine, step, channel?, deps?}.
//
// Dependencies: when no op has `deps`, they are inferred from data flow in file order, exactly as
// ScheduleBuilder infers them for built-in algorithms. When one op has `deps`, every op must have
// them (`[]` for none) and they are used as given, after these checks: every dep names another,
// earlier op of the file (so op ids stay file indices; a dependency on a later op is reported as a
// cycle when the deps form one, else as an order error), and the deps order every two ops that the
// inference would order (directly or through other ops), so every order in which the ops may run
// computes what the file order computes.
//
// Reading checks structure only (types, ranges, sizes, dependencies); whether the schedule computes
// its collective is validation::load_verified_schedule's job (validation/ depends on this target,
// not the other way round). Every error is a ScheduleFileError whose message names the origin,
// the JSON path (a JSON Pointer such as /ops/3/dst), what was found and what was expected.
#pragma once

#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <string_view>

#include "sim/schedule/schedule.hpp"
#include "sim/units/enum_names.hpp"

namespace collsim::sched {

/// The value of the top-level "format" key this version reads and writes.
inline constexpr std::string_view kScheduleFormat = "collsim-schedule-1";

/// A schedule file that cannot be read or does not describe a valid schedule.
class ScheduleFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The file's names of the buffer kinds, in enum order (read back exactly).
inline constexpr auto kBufferNames =
    make_enum_names<Buffer>({{Buffer::Data, "data"}, {Buffer::Output, "output"}, {Buffer::Scratch, "scratch"}});
/// The file's names of the combines: "reduce" adds into the receiver's chunk, "copy" overwrites it.
inline constexpr auto kCombineNames = make_enum_names<Combine>({{Combine::Reduce, "reduce"}, {Combine::Copy, "copy"}});

/// The file's name of a buffer kind: "data", "output", "scratch".
[[nodiscard]] std::string_view buffer_name(Buffer buffer) noexcept;

/// The file's name of a combine: "reduce" (add into the receiver's chunk), "copy" (overwrite it).
[[nodiscard]] std::string_view combine_name(Combine combine) noexcept;

/// Writes `schedule` as JSON to `out`: one op, chunk or phase per line, keys in a fixed order, so
/// the text is deterministic and diffs well. Omits what reading restores by default: `helpers` when
/// 0, `root` unless the collective is broadcast or reduce, `element_size_bytes` when 1, `chunks`
/// when they are split_even(size, ranks, element_size), `channel` when 0, and every op's `deps` when inferring them in file
/// order gives exactly the schedule's dependencies (true for everything ScheduleBuilder makes).
/// Reading the text back gives a schedule equal to `schedule`.
void write_schedule_json(const Schedule& schedule, std::ostream& out);

/// Parses schedule JSON `text`; `where` names its origin in messages (a path, or "-").
/// Throws ScheduleFileError; on invalid JSON the message gives `where:line:column`.
[[nodiscard]] Schedule parse_schedule_json(std::string_view text, std::string_view where);

/// Reads and parses the schedule file at `path`. Throws ScheduleFileError.
[[nodiscard]] Schedule load_schedule_file(const std::filesystem::path& path);

}  // namespace collsim::sched
