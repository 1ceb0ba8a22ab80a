// How the options of a request are spelled by the front ends: the command line's flags, and the
// Python module's keywords (the flags' long names, dashes as underscores). Both front ends print
// a field reference in an error (run/errors.hpp) as the flag, so an error reads the same in both.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "run/errors.hpp"

namespace collsim::run {

/// The command-line spelling of `field`: "--chunk-size"; "-o" for output, "-j/--jobs", "LOG".
[[nodiscard]] std::string flag_spelling(Field field);

/// The field whose keyword (its snake_case name, field_name()) is `keyword`; nullopt otherwise.
[[nodiscard]] std::optional<Field> field_of_keyword(std::string_view keyword);

}  // namespace collsim::run
