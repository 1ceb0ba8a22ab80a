// Strict JSON reading for collsim's input files (topologies, parameter files): the shared strict
// parser and checked reader (sim/json/strict_json.hpp) plus the topology's own value types; every
// error is a TopologyError of one line naming the file, the JSON path (a JSON Pointer), what was
// found and what was expected. Internal to topologies/ (it exposes nlohmann::json).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/json/strict_json.hpp"
#include "topologies/model_params.hpp"
#include "topologies/topology.hpp"

namespace collsim::topo::detail {

using json = nlohmann::json;
using strictjson::brief;

/// strictjson::Reader failing with TopologyError, with readers for rates, latencies, sizes,
/// fractions, counts and booleans.
class Reader : public strictjson::Reader<TopologyError> {
 public:
  using strictjson::Reader<TopologyError>::Reader;

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

};

/// Parses `text` strictly (strictjson::parse_strict); syntax errors become TopologyError naming
/// `where`, line and column.
inline json parse_strict_json(std::string_view text, std::string_view where) {
  try {
    return strictjson::parse_strict(text, where);
  } catch (const strictjson::JsonSyntaxError& e) {
    throw TopologyError(e.what());
  }
}

/// Reads a "params" object (model_params.hpp) at `path`; `allow_format` accepts the parameter
/// file's "format" key.
ModelParams read_model_params(const Reader& rd, const json& obj, const std::string& path, bool allow_format);

}  // namespace collsim::topo::detail
