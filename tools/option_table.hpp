// The options that several commands share (simulate, sweep, compare, calibrate, validate, explain):
// one flag and one help text each, registered from this table, so the commands cannot drift apart.
#pragma once

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "run/errors.hpp"

namespace collsim::cli {

/// The help text of the shared option `field`; throws std::logic_error for a field that is not in
/// the table (an option of one command only keeps its help where it is registered).
[[nodiscard]] std::string_view shared_help(run::Field field);

/// Registers the shared option `field` on `cmd` under its flag (run::flag_spelling) with its help,
/// bound to `target`; an empty value is refused (add_value).
CLI::Option* add_shared(CLI::App& cmd, run::Field field, std::string& target);

}  // namespace collsim::cli
