// Fuzzes the unit parsers of sim/units (sizes, bandwidths, latencies, and the JSON number forms of
// rates and latencies): every input is either read or refused with UnitError, and what is read
// prints back to text that reads again as the same value (the exact digits units.hpp promises).
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/units/units.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using collsim::Bandwidth;
using collsim::Bytes;
using collsim::Time;
using collsim::UnitError;
using collsim::fuzz::must_accept;
using collsim::fuzz::require;

void check_size(Bytes bytes) {
  // format_size prints an exact IEC form or bytes; either must read back as the same count.
  const Bytes again = must_accept<UnitError>([&] { return collsim::parse_size(collsim::format_size(bytes)); },
                                             "parse_size(format_size(x))");
  require(again == bytes, "parse_size(format_size(x)) == x");
}

void check_bandwidth(Bandwidth bw) {
  require(bw.bits_per_s > 0, "a bandwidth read is positive");
  const Bandwidth again = must_accept<UnitError>(
      [&] { return collsim::parse_bandwidth(collsim::format_bandwidth(bw)); }, "parse_bandwidth(format_bandwidth(x))");
  require(again == bw, "parse_bandwidth(format_bandwidth(x)) == x");
}

void check_latency(Time t) {
  require(t >= Time{0}, "a latency read is not negative");
  const Time again =
      must_accept<UnitError>([&] { return collsim::parse_latency(collsim::format_time(t)); }, "parse_latency(format_time(x))");
  require(again == t, "parse_latency(format_time(x)) == x");
  const Time us = must_accept<UnitError>(
      [&] { return collsim::parse_latency(collsim::format_time_us_exact(t) + "us"); },
      "parse_latency(format_time_us_exact(x) + \"us\")");
  require(us == t, "parse_latency(format_time_us_exact(x) + \"us\") == x");
}

// Runs `parse` on the text and checks what it read; UnitError is the documented refusal.
template <class Parse, class Check>
void attempt(Parse parse, Check check) {
  try {
    check(parse());
  } catch (const UnitError&) {
  }
}

}  // namespace

/// libFuzzer's entry point: the input through every unit parser.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = collsim::fuzz::as_text(data, size);
  attempt([&] { return collsim::parse_size(text); }, check_size);
  attempt([&] { return collsim::parse_bandwidth(text); }, check_bandwidth);
  attempt([&] { return collsim::parse_latency(text); }, check_latency);
  // The text as a JSON number carries it: files give rates in bytes/s and latencies in seconds.
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size()) {
    attempt([&] { return collsim::bandwidth_from_bytes_per_s(value); }, check_bandwidth);
    attempt([&] { return collsim::latency_from_seconds(value); }, check_latency);
  }
  return 0;
}
