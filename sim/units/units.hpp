// Units of collsim: simulated time, sizes, bandwidths, and their text forms.
//
// Time is a signed 64-bit count of picoseconds (±106 days), so runs are exact and deterministic.
// Sizes are unsigned 64-bit byte counts. A bandwidth is an exact integer number of bits per second
// per direction. Text follows nccl-tests and SI/IEC usage (DESIGN.md, "Units and numbers"):
//   sizes:      bare K/M/G/T and KiB/MiB/GiB/TiB are powers of 1024 (nccl-tests -b/-e);
//               KB/MB/GB/TB are powers of 1000; a bare number or "B" is bytes.
//   bandwidths: GB/s (and GBps) = 1e9 bytes/s, as nccl-tests prints; Gb/s (and Gbps) = 1e9 bits/s;
//               prefixes K, M, G, T are decimal; Ki, Mi, Gi, Ti binary.
//   latencies:  ps, ns, us (also µs), ms, s.
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace collsim {

/// Simulated time: a signed count of picoseconds.
using Time = std::chrono::duration<std::int64_t, std::pico>;

/// A size or an offset in bytes.
using Bytes = std::uint64_t;

/// A bandwidth per direction, as an exact integer number of bits per second.
struct Bandwidth {
  std::uint64_t bits_per_s = 0;
  friend constexpr auto operator<=>(const Bandwidth&, const Bandwidth&) = default;
};

/// Thrown by the parsers below; what() is one line that names what was found and what was expected.
class UnitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A time past the simulated clock's end (2^63-1 ps): the input is valid, but this run's time
/// does not fit (a sweep or compare row reports it in its row and goes on with the others).
class ClockOverflowError : public UnitError {
 public:
  using UnitError::UnitError;
};

/// Time to move `bytes` at `bw`, rounded up once to the next picosecond:
/// ceil(bytes * 8 * 1e12 / bits_per_s), with a 128-bit intermediate (never a pre-rounded
/// per-byte time, which is 20 % wrong at 3.2 Tb/s; STYLE.md pattern 1).
/// Precondition: bw.bits_per_s > 0. Throws ClockOverflowError if the result does not fit in Time.
Time transfer_time(Bytes bytes, Bandwidth bw);

/// a + b for non-negative times; throws ClockOverflowError when the sum passes the simulated clock's
/// end (2^63-1 ps, about 106 days) instead of wrapping around.
Time checked_add(Time a, Time b);

/// a · n for a non-negative time; throws ClockOverflowError as checked_add does.
Time checked_mul(Time a, std::uint64_t n);

/// Parses a size such as "1G" (2^30), "512KiB", "1.5M", "4GB" (4e9), "6", "100B".
/// Negative, non-numeric, fractional-byte and out-of-range values throw UnitError.
Bytes parse_size(std::string_view text);

/// Parses a bandwidth such as "300GB/s", "200Gb/s", "25 GBps", "400Gbps", "1.6Tb/s".
/// The result is rounded to the nearest bit/s; zero, negative, NaN-like or missing units throw, and
/// so do rates that round to 2^64-1 b/s or more.
Bandwidth parse_bandwidth(std::string_view text);

/// Parses a latency such as "700ns", "1.5us", "2ms", "0s", rounded to the nearest picosecond.
/// A unit is required; negative values and garbage throw UnitError.
Time parse_latency(std::string_view text);

/// Bandwidth from a JSON number in bytes per second (SI base unit for data rates in collsim files).
/// Throws UnitError for NaN, infinities, zero or negative values.
Bandwidth bandwidth_from_bytes_per_s(double bytes_per_s);

/// Latency from a JSON number in seconds, rounded to the nearest picosecond.
/// Throws UnitError for NaN, infinities and negative values.
Time latency_from_seconds(double seconds);

/// "1 GiB", "1000 B", "1.5 MiB": exact IEC form when one exists, else bytes.
std::string format_size(Bytes bytes);

/// "300 GB/s" (1e9 bytes/s) with the exact digits; "0.000000001 Gb/s" (1 bit/s) when the rate is not a whole
/// number of bytes per second.
std::string format_bandwidth(Bandwidth bw);

/// "1.5 us", "700 ns", "2.129804 ms": the largest unit in which the value is >= 1, with the exact
/// digits of the picosecond count (trailing zeros removed).
std::string format_time(Time t);

/// The exact decimal of t in microseconds ("2129.80416"), for JSON and CSV.
std::string format_time_us_exact(Time t);

/// "1 chunk", "2 chunks": a count with its noun (singular, taking a plain s), plural unless it is one.
std::string format_count(std::uint64_t n, std::string_view noun);

/// Bandwidth in GB/s (1e9 bytes/s) as a double, for reports.
double to_GBps(Bandwidth bw);

/// Time in microseconds as a double (exact for |t| < 2^53 ps up to the last binary digit).
double to_us(Time t);

}  // namespace collsim
