// What an error says to a user, the same from every front end: the exceptions the library layer and
// the libraries under it throw, sorted into kinds (the CLI's exit code, the Python exception class)
// with their one-line message.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "run/errors.hpp"

namespace collsim::run {

/// The kind of an error, by the exception that carried it.
enum class ErrorKind : std::uint8_t {
  Request,       ///< RequestError: a field holds a value the layer cannot run
  Overflow,      ///< OverflowError, ClockOverflowError: a valid request whose time passes the clock
  Output,        ///< OutputError: a file or stream could not be written
  Algorithm,     ///< algo::AlgorithmError: an unknown algorithm, or one that cannot serve the request
  Topology,      ///< topo::TopologyError: a topology file or document that cannot be read
  Unit,          ///< UnitError: a size, rate or latency that does not parse or fit
  ScheduleFile,  ///< sched::ScheduleFileError: a schedule file that cannot be read
  Csv,           ///< reports::CsvError: a CSV file that cannot be read
  Limit,         ///< std::length_error: more than this build can hold (a schedule too large)
  Memory,        ///< std::bad_alloc
  Internal,      ///< any other exception: a bug
};

/// An error as a front end reports it.
struct ErrorReport {
  ErrorKind kind = ErrorKind::Internal;
  /// One line (one_line()), field references spelled by the front end, e.g. `--channels: found "0",
  /// expected a whole number from 1 to 64`; an algorithm error is prefixed with the algorithm field.
  std::string message;
  std::optional<Field> field;  ///< the field at fault (Request, Overflow)
  std::string value;           ///< what the field held ("" when it was missing)
};

/// `error` (from std::current_exception()) as a report, field references spelled by `spell` (null:
/// field names).
[[nodiscard]] ErrorReport report_error(const std::exception_ptr& error, FieldSpelling spell);

/// `msg` with control characters and broken UTF-8 escaped (\n, \t, \xNN), so that a message that
/// quotes what a user typed stays one readable line.
[[nodiscard]] std::string one_line(std::string_view msg);

}  // namespace collsim::run
