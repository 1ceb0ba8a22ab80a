// Strict JSON reading for collsim's input files (topologies, parameter files): the document is
// parsed with duplicate keys and absurd nesting rejected, and every error is a TopologyError of one
// line naming the file, the JSON path (a JSON Pointer), what was found and what was expected.
// Internal to topologies/ (it exposes nlohmann::json).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "topologies/model_params.hpp"
#include "topologies/topology.hpp"

namespace collsim::topo::detail {

using json = nlohmann::json;

// Formats a JSON value briefly for "found ..." in messages.
inline std::string brief(const json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

class Reader {
 public:
  explicit Reader(std::string_view where) : where_(where) {}

  [[noreturn]] void fail(const std::string& path, const std::string& msg) const {
    throw TopologyError(fmt::format("{}: {}: {}", where_, path.empty() ? "/" : path, msg));
  }

  void only_keys(const json& obj, const std::string& path, std::initializer_list<std::string_view> allowed) const {
    for (const auto& [key, value] : obj.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(path + "/" + key, fmt::format("unknown key \"{}\", expected one of: {}", key, list));
      }
    }
  }

  const json& member(const json& obj, const std::string& path, const char* key, const char* expected) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(path, fmt::format("missing key \"{}\" ({})", key, expected));
    return *it;
  }

  std::string string_at(const json& v, const std::string& path, const char* expected) const {
    if (!v.is_string() || v.get_ref<const std::string&>().empty())
      fail(path, fmt::format("found {}, expected {}", brief(v), expected));
    const auto& s = v.get_ref<const std::string&>();
    // Ids and names end up in tables and one-line messages: no control characters.
    if (std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      fail(path, fmt::format("found {}, expected {} without control characters", brief(v), expected));
    return s;
  }

  Bandwidth bandwidth_at(const json& v, const std::string& path) const {
    try {
      if (v.is_string()) return parse_bandwidth(v.get_ref<const std::string&>());
      if (v.is_number()) return bandwidth_from_bytes_per_s(v.get<double>());
    } catch (const UnitError& e) {
      fail(path, e.what());
    }
    fail(path, fmt::format("found {}, expected a positive bandwidth per direction: a string such as \"300GB/s\" or "
                           "\"200Gb/s\", or a number of bytes per second",
                           brief(v)));
  }

  Time latency_at(const json& v, const std::string& path) const {
    try {
      if (v.is_string()) return parse_latency(v.get_ref<const std::string&>());
      if (v.is_number()) return latency_from_seconds(v.get<double>());
    } catch (const UnitError& e) {
      fail(path, e.what());
    }
    fail(path, fmt::format("found {}, expected a non-negative latency: a string such as \"700ns\" or a number of "
                           "seconds",
                           brief(v)));
  }

  /// A size: a string with a unit ("1MiB", "64K") or a whole number of bytes.
  Bytes size_at(const json& v, const std::string& path) const {
    try {
      if (v.is_string()) return parse_size(v.get_ref<const std::string&>());
      if (v.is_number_unsigned()) return v.get<Bytes>();
    } catch (const UnitError& e) {
      fail(path, e.what());
    }
    fail(path, fmt::format("found {}, expected a size: a string such as \"1MiB\" or a whole number of bytes", brief(v)));
  }

  /// A number in (0, 1]: an efficiency.
  double fraction_at(const json& v, const std::string& path) const {
    if (!v.is_number() || !(v.get<double>() > 0.0) || v.get<double>() > 1.0)
      fail(path, fmt::format("found {}, expected a number greater than 0 and at most 1", brief(v)));
    return v.get<double>();
  }

  /// A whole number in [min, max].
  std::uint32_t count_at(const json& v, const std::string& path, std::uint32_t min, std::uint32_t max) const {
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() < min || v.get<std::uint64_t>() > max)
      fail(path, fmt::format("found {}, expected a whole number from {} to {}", brief(v), min, max));
    return static_cast<std::uint32_t>(v.get<std::uint64_t>());
  }

  /// true or false.
  bool bool_at(const json& v, const std::string& path) const {
    if (!v.is_boolean()) fail(path, fmt::format("found {}, expected true or false", brief(v)));
    return v.get<bool>();
  }

 private:
  std::string where_;
};

// 1-based line and column of byte offset `pos` in `text`.
inline std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t pos) {
  pos = std::min(pos, text.size());
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// Deeper documents are not topologies, and unbounded nesting would exhaust the stack when a value
// is printed in a message.
inline constexpr int kMaxDepth = 32;

// Rejects what nlohmann accepts silently: a key given twice in one object (the last would win)
// and absurd nesting. Runs as the parser's callback; `keys` holds the keys of each open object.
class Strictness {
 public:
  explicit Strictness(std::string_view where) : where_(where) {}
  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxDepth)
      throw TopologyError(fmt::format("{}: invalid JSON: nested deeper than {} levels", where_, kMaxDepth));
    switch (event) {
      case json::parse_event_t::object_start:
        keys_.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!keys_.empty()) keys_.pop_back();
        break;
      case json::parse_event_t::key: {
        const auto& key = parsed.get_ref<const std::string&>();
        auto& seen = keys_.back();
        if (std::find(seen.begin(), seen.end(), key) != seen.end())
          throw TopologyError(fmt::format("{}: invalid JSON: key \"{}\" appears twice in one object, expected it once",
                                          where_, key));
        seen.push_back(key);
        break;
      }
      default:
        break;
    }
    return true;
  }

 private:
  std::string where_;
  std::vector<std::vector<std::string>> keys_;
};

/// Parses `text` strictly; syntax errors name `where`, line and column.
inline json parse_strict_json(std::string_view text, std::string_view where) {
  json doc;
  try {
    doc = json::parse(text, Strictness(where));
  } catch (const json::parse_error& e) {
    // nlohmann's byte is one past the offending character.
    const auto [line, col] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string detail = e.what();
    if (auto p = detail.find("column"); p != std::string::npos) {
      if (auto q = detail.find(": ", p); q != std::string::npos) detail = detail.substr(q + 2);
    }
    throw TopologyError(fmt::format("{}:{}:{}: invalid JSON: {}", where, line, col, detail));
  } catch (const json::exception& e) {
    // e.g. out_of_range 406, a number too large for a double: no position is given.
    std::string detail = e.what();
    if (auto p = detail.find("] "); p != std::string::npos) detail = detail.substr(p + 2);
    throw TopologyError(fmt::format("{}: invalid JSON: {}", where, detail));
  }

  return doc;
}

/// Reads a "params" object (model_params.hpp) at `path`; `allow_format` accepts the parameter
/// file's "format" key.
ModelParams read_model_params(const Reader& rd, const json& obj, const std::string& path, bool allow_format);

}  // namespace collsim::topo::detail
