// Strict JSON parsing for collsim's input files (topologies, schedules): nlohmann::json, plus the
// checks it does not make. A key given twice in one object is an error (nlohmann keeps the last
// silently), nesting is capped (a deeper document is no collsim file, and printing it in a message
// would exhaust the stack), and syntax errors carry a 1-based line and column.
//
// Its own tiny target (collsim_json) so that both the schedule IR and the topology loader can use
// it without depending on each other (DESIGN.md: topologies and schedule depend only on units).
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>
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

/// Reads the values of a parsed document with checks; every failure throws `Error` (constructible
/// from a std::string) with one line "<where>: <JSON Pointer>: <what was found, what was expected>".
/// Loaders derive from it to add readers of their own value types.
template <class Error>
class Reader {
 public:
  explicit Reader(std::string_view where) : where_(where) {}

  /// Throws Error("<where>: <path>: <msg>"); the path "" is written "/".
  [[noreturn]] void fail(const std::string& path, const std::string& msg) const {
    throw Error(fmt::format("{}: {}: {}", where_, path.empty() ? "/" : path, msg));
  }

  /// Fails on the first key of `obj` that is not in `allowed`, naming the allowed ones.
  void only_keys(const nlohmann::json& obj, const std::string& path,
                 std::initializer_list<std::string_view> allowed) const {
    for (const auto& [key, value] : obj.items())
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        fail(path + "/" + key, fmt::format("unknown key \"{}\", expected one of: {}", key, fmt::join(allowed, ", ")));
  }

  /// The value of `key` in `obj`; fails when it is missing, saying what it should hold.
  const nlohmann::json& member(const nlohmann::json& obj, const std::string& path, const char* key,
                               std::string_view expected) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(path, fmt::format("missing key \"{}\" ({})", key, expected));
    return *it;
  }

  /// The value of `key` in `obj`, or nullptr when it is absent.
  const nlohmann::json* optional(const nlohmann::json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  /// `v` when it is an object; fails otherwise.
  const nlohmann::json& object_at(const nlohmann::json& v, const std::string& path, std::string_view expected) const {
    if (!v.is_object()) fail(path, fmt::format("found {}, expected {}", brief(v), expected));
    return v;
  }

  /// `v` when it is an array; fails otherwise.
  const nlohmann::json& array_at(const nlohmann::json& v, const std::string& path, std::string_view expected) const {
    if (!v.is_array()) fail(path, fmt::format("found {}, expected {}", brief(v), expected));
    return v;
  }

  /// A non-empty string without control characters (ids and names end up in tables and one-line
  /// messages).
  std::string string_at(const nlohmann::json& v, const std::string& path, std::string_view expected) const {
    if (!v.is_string() || v.template get_ref<const std::string&>().empty())
      fail(path, fmt::format("found {}, expected {}", brief(v), expected));
    const auto& s = v.template get_ref<const std::string&>();
    if (std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      fail(path, fmt::format("found {}, expected {} without control characters", brief(v), expected));
    return s;
  }

  /// A whole number in [min, max]; `what` says what it is ("a rank", "a step").
  std::uint64_t uint_at(const nlohmann::json& v, const std::string& path, std::uint64_t min, std::uint64_t max,
                        std::string_view what) const {
    if (!v.is_number_unsigned() || v.template get<std::uint64_t>() < min || v.template get<std::uint64_t>() > max)
      fail(path, fmt::format("found {}, expected {}: a whole number from {} to {}", brief(v), what, min, max));
    return v.template get<std::uint64_t>();
  }

 private:
  std::string where_;
};

}  // namespace collsim::strictjson
