// Strict JSON parsing for collsim's input files (topologies, schedules): nlohmann::json, plus the
// checks it does not make. A key given twice in one object is an error (nlohmann keeps the last
// silently), nesting is capped (a deeper document is no collsim file, and printing it in a message
// would exhaust the stack), and syntax errors carry a 1-based line and column.
//
// Its own tiny target (collsim_json) so that both the schedule IR and the topology loader can use
// it without depending on each other (DESIGN.md: topologies and schedule depend only on units).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace collsim::strictjson {

/// Text that is not strict JSON. The message is complete: "<where>:<line>:<column>: invalid JSON:
/// <detail>" for a syntax error, "<where>: invalid JSON: <detail>" for a duplicate key, too deep a
/// nesting or a number out of range. Loaders rethrow it as their own error type.
class JsonSyntaxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Deepest nesting of objects and arrays accepted (a schedule is three levels deep).
inline constexpr int kMaxDepth = 32;

/// Parses `text`; `where` names its origin (a path, or "-") in messages. Throws JsonSyntaxError.
[[nodiscard]] nlohmann::json parse_strict(std::string_view text, std::string_view where);

/// `value` as compact JSON for "found ..." in messages, cut to 60 characters ("...").
[[nodiscard]] std::string brief(const nlohmann::json& value);

}  // namespace collsim::strictjson
