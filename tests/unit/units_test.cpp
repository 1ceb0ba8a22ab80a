// Units: parsing and printing of sizes, bandwidths and latencies, and exact transfer times.
//
// Every expected value is written as arithmetic from the definitions in units.hpp (nccl-tests
// convention: bare K/M/G/T and KiB/MiB/GiB/TiB are powers of 1024, KB/MB/GB/TB powers of 1000;
// GB/s = 1e9 bytes/s, Gb/s = 1e9 bits/s; time in picoseconds), never copied from program output.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/units/int128.hpp"
#include "sim/units/saturate.hpp"
#include "sim/units/units.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace units_test {

using collsim::Bandwidth;
using collsim::Bytes;
using collsim::Time;
using collsim::UnitError;

namespace {

// A text that must be rejected, and what the message must quote from it.
struct BadText {
  std::string_view text;
  std::string_view found;
};

// ceil(bytes * 8 bits * 1e12 ps/s / bits_per_s), computed independently of units.cpp.
std::int64_t ceil_transfer_ps(Bytes bytes, std::uint64_t bits_per_s) {
  const collsim::u128 num = static_cast<collsim::u128>(bytes) * 8 * 1'000'000'000'000ull;
  const collsim::u128 q = num / bits_per_s;
  return static_cast<std::int64_t>(num % bits_per_s == 0 ? q : q + 1);
}

// The transfer time if it were computed from a per-byte time rounded to a whole picosecond first.
std::int64_t pre_rounded_ps(Bytes bytes, std::uint64_t bits_per_s) {
  const double per_byte = std::round(8e12 / static_cast<double>(bits_per_s));
  return static_cast<std::int64_t>(per_byte) * static_cast<std::int64_t>(bytes);
}

constexpr std::uint64_t kKi = 1024;
constexpr std::uint64_t kGB = 1'000'000'000;  // bytes in a decimal gigabyte

}  // namespace

TEST_CASE("parse_size: binary prefixes, decimal prefixes and bare bytes", "[units][size]") {
  using collsim::parse_size;
  CHECK(parse_size("1G") == 1ull << 30);
  CHECK(parse_size("1g") == 1ull << 30);
  CHECK(parse_size("512K") == 512 * kKi);
  CHECK(parse_size("512k") == 512 * kKi);
  CHECK(parse_size("1.5M") == (1ull << 20) + (1ull << 19));
  CHECK(parse_size("1GiB") == 1ull << 30);
  CHECK(parse_size("2MiB") == 2ull << 20);
  CHECK(parse_size("1T") == 1ull << 40);
  CHECK(parse_size("1TiB") == 1ull << 40);
  CHECK(parse_size("4GB") == 4 * kGB);
  CHECK(parse_size("4KB") == 4'000);
  CHECK(parse_size("3MB") == 3'000'000);
  CHECK(parse_size("2TB") == 2'000'000'000'000);
  CHECK(parse_size("6") == 6);
  CHECK(parse_size("6B") == 6);
  CHECK(parse_size("0") == 0);
  CHECK(parse_size("  2 KiB ") == 2 * kKi);
  CHECK(parse_size("1e3") == 1000);
  CHECK(parse_size("0.5K") == kKi / 2);
  CHECK(parse_size("18446744073709551615") == std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("parse_size: errors name the text found", "[units][size]") {
  using collsim::parse_size;
  const std::vector<BadText> bad{
      {"-5", "\"-5\""},
      {"abc", "\"abc\""},
      {"", "found \"\""},
      {"1.1G", "\"1.1G\""},   // 1.1 * 2^30 is not a whole number of bytes
      {"5Mb", "\"Mb\""},      // bits are not a size
      {"1XB", "\"XB\""},
      {"20000000000G", "\"20000000000G\""},  // 2e10 * 2^30 > 2^64 - 1
      {"18446744073709551616", "\"18446744073709551616\""},
  };
  for (const auto& [text, found] : bad) {
    INFO("text: \"" << text << "\"");
    CHECK_THROWS_AS(parse_size(text), UnitError);
    CHECK_THROWS_WITH(parse_size(text), Catch::Contains(std::string(found)));
  }
}

TEST_CASE("parse_bandwidth: bytes and bits per second with decimal and binary prefixes", "[units][bandwidth]") {
  using collsim::parse_bandwidth;
  CHECK(parse_bandwidth("300GB/s") == Bandwidth{8ull * 300'000'000'000});
  CHECK(parse_bandwidth("200Gb/s") == Bandwidth{200'000'000'000});
  CHECK(parse_bandwidth("400Gbps") == Bandwidth{400'000'000'000});
  CHECK(parse_bandwidth("25 GBps") == Bandwidth{8ull * 25'000'000'000});
  CHECK(parse_bandwidth("1.6Tb/s") == Bandwidth{1'600'000'000'000});
  CHECK(parse_bandwidth("12.5GB/s") == Bandwidth{8ull * 12'500'000'000});
  CHECK(parse_bandwidth("1GiB/s") == Bandwidth{8ull << 30});
  CHECK(parse_bandwidth("100Mb/s") == Bandwidth{100'000'000});
  CHECK(parse_bandwidth("1KiB/s") == Bandwidth{8 * kKi});
  CHECK(parse_bandwidth("1B/s") == Bandwidth{8});
  CHECK(parse_bandwidth(" 31.5GB/s ") == Bandwidth{8ull * 31'500'000'000});
}

TEST_CASE("parse_bandwidth: errors name the text found", "[units][bandwidth]") {
  using collsim::parse_bandwidth;
  const std::vector<BadText> bad{
      {"0GB/s", "\"0GB/s\""},       {"-1GB/s", "\"-1GB/s\""},     {"300GB", "\"300GB\""},
      {"300", "\"300\""},           {"fastGB/s", "\"fastGB/s\""}, {"nanGB/s", "\"nanGB/s\""},
      {"infGB/s", "\"infGB/s\""},   {"300GX/s", "\"300GX/s\""},
  };
  for (const auto& [text, found] : bad) {
    INFO("text: \"" << text << "\"");
    CHECK_THROWS_AS(parse_bandwidth(text), UnitError);
    CHECK_THROWS_WITH(parse_bandwidth(text), Catch::Contains(std::string(found)));
  }
  // 0 and a negative value are the same mistake, named the same way.
  CHECK_THROWS_WITH(parse_bandwidth("0GB/s"), Catch::Contains("expected a positive bandwidth"));
  CHECK_THROWS_WITH(parse_bandwidth("-1GB/s"), Catch::Contains("expected a positive bandwidth"));
}

// Found by tests/fuzz/units_fuzz (tests/fuzz/regressions/units/bandwidth-rounds-to-2-64-1): the range
// was checked before rounding, so a rate just under 2^64-1 b/s read as 2^64-1, which format_bandwidth
// then printed as text that parse_bandwidth refuses.
TEST_CASE("parse_bandwidth: a rate that rounds to 2^64-1 b/s is too large, as 2^64-1 itself is", "[units][bandwidth]") {
  using collsim::parse_bandwidth;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  CHECK(parse_bandwidth("18446744073709551614.4b/s") == Bandwidth{kMax - 1});
  CHECK_THROWS_WITH(parse_bandwidth("18446744073709551614.5b/s"), Catch::Contains("too large"));
  CHECK_THROWS_WITH(parse_bandwidth("18446744073709551615b/s"), Catch::Contains("too large"));
}

TEST_CASE("parse_latency: ps, ns, us, µs, ms and s", "[units][latency]") {
  using collsim::parse_latency;
  CHECK(parse_latency("700ns") == Time{700 * 1'000});
  CHECK(parse_latency("1.5us") == Time{1'500'000});
  CHECK(parse_latency("2ms") == Time{2 * 1'000'000'000ll});
  CHECK(parse_latency("0s") == Time{0});
  CHECK(parse_latency("1s") == Time{1'000'000'000'000});
  CHECK(parse_latency("3ps") == Time{3});
  CHECK(parse_latency("1\xC2\xB5s") == Time{1'000'000});  // U+00B5 MICRO SIGN in UTF-8
  CHECK(parse_latency("1\xCE\xBCs") == Time{1'000'000});  // U+03BC GREEK SMALL LETTER MU
  CHECK(parse_latency(" 2.5 us ") == Time{2'500'000});
  CHECK(parse_latency("1.6ps") == Time{2});  // rounded to the nearest picosecond
  CHECK(parse_latency("1.4ps") == Time{1});
  // The largest Time, 2^63 - 1 ps, parses.
  CHECK(parse_latency("9223372.036854775807s") == Time{std::numeric_limits<std::int64_t>::max()});
  CHECK(parse_latency("9223372.0368547758074s") == Time{std::numeric_limits<std::int64_t>::max()});
}

TEST_CASE("parse_latency: errors name the text found", "[units][latency]") {
  using collsim::parse_latency;
  const std::vector<BadText> bad{
      {"1", "\"1\""}, {"-1us", "\"-1us\""}, {"1h", "\"1h\""}, {"abc", "\"abc\""}, {"", "found \"\""},
      {"1e30s", "\"1e30s\""},
      {"9223372.036854775808s", "\"9223372.036854775808s\""},      // 2^63 ps, one past the largest Time
      {"9223372.0368547758075s", "\"9223372.0368547758075s\""},    // rounds up to 2^63 ps
  };
  for (const auto& [text, found] : bad) {
    INFO("text: \"" << text << "\"");
    CHECK_THROWS_AS(parse_latency(text), UnitError);
    CHECK_THROWS_WITH(parse_latency(text), Catch::Contains(std::string(found)));
  }
  // A bare number names what is missing, and how zero is written (no empty quotes).
  CHECK_THROWS_WITH(parse_latency("0"), Catch::StartsWith("no time unit in \"0\"") && Catch::Contains("or 0s"));
}

TEST_CASE("transfer_time rounds up once, exactly", "[units][transfer]") {
  using collsim::transfer_time;
  // 1 byte at 3.2 Tb/s: 8e12 / 3.2e12 = 2.5 ps, rounded up to 3 ps.
  CHECK(transfer_time(1, Bandwidth{3'200'000'000'000}) == Time{3});
  // 1 GiB at 300 GB/s: 2^30 * 8e12 / 2.4e12 = 2^30 * 10 / 3 ps, rounded up.
  CHECK(transfer_time(1ull << 30, Bandwidth{8ull * 300'000'000'000}) == Time{((1ll << 30) * 10 + 2) / 3});
  // 1 MiB at 400 Gb/s: exactly 20 ps per byte.
  CHECK(transfer_time(1ull << 20, Bandwidth{400'000'000'000}) == Time{(1ll << 20) * 20});
  // 1 GiB at 3.6 Tb/s: 2^30 * 8e12 / 3.6e12 = 2^30 * 20 / 9 ps, rounded up.
  CHECK(transfer_time(1ull << 30, Bandwidth{3'600'000'000'000}) == Time{((1ll << 30) * 20 + 8) / 9});
  CHECK(transfer_time(0, Bandwidth{1}) == Time{0});
  CHECK(transfer_time(1, Bandwidth{8'000'000'000'000}) == Time{1});  // exactly 1 ps: no extra rounding
}

TEST_CASE("transfer_time is exact where a pre-rounded per-byte time is wrong", "[units][transfer]") {
  using collsim::transfer_time;
  const std::vector<std::uint64_t> rates{400'000'000'000, 3'200'000'000'000, 3'600'000'000'000,
                                         8ull * 300'000'000'000, 8ull * 31'500'000'000, 1};
  const std::vector<Bytes> sizes{1, 7, 1000, 4093, (1ull << 20) + 1, 1ull << 30, 3 * kGB};
  for (auto bps : rates) {
    for (auto bytes : sizes) {
      if (bps == 1 && bytes > 1000) continue;  // the result must fit in Time
      INFO("bytes " << bytes << " at " << bps << " bit/s");
      CHECK(transfer_time(bytes, Bandwidth{bps}).count() == ceil_transfer_ps(bytes, bps));
    }
  }
  // 1000 bytes at 3.2 Tb/s take 2500 ps; 3 ps per byte would give 3000 ps (20 % wrong).
  CHECK(transfer_time(1000, Bandwidth{3'200'000'000'000}) == Time{1000 * 8'000 / 3'200});
  CHECK(pre_rounded_ps(1000, 3'200'000'000'000) != 1000 * 8'000 / 3'200);
  // 9 bytes at 3.6 Tb/s take 9 * 8e12 / 3.6e12 = 20 ps exactly; 2 ps per byte would give 18 ps.
  CHECK(transfer_time(9, Bandwidth{3'600'000'000'000}) == Time{9 * 8'000 / 3'600});
  CHECK(pre_rounded_ps(9, 3'600'000'000'000) != 9 * 8'000 / 3'600);
}

TEST_CASE("transfer_time rejects zero bandwidth and overflowing results", "[units][transfer]") {
  using collsim::transfer_time;
  CHECK_THROWS_AS(transfer_time(1, Bandwidth{0}), UnitError);
  // 2^40 bytes at 1 bit/s is 8.8e24 ps, beyond the 9.2e18 ps a Time holds.
  CHECK_THROWS_AS(transfer_time(1ull << 40, Bandwidth{1}), UnitError);
}

TEST_CASE("format_size prints exact IEC units or bytes", "[units][format]") {
  using collsim::format_size;
  CHECK(format_size(1ull << 30) == "1 GiB");
  CHECK(format_size(1000) == "1000 B");
  CHECK(format_size((1ull << 20) + (1ull << 19)) == "1.5 MiB");
  CHECK(format_size(kKi) == "1 KiB");
  CHECK(format_size(1ull << 40) == "1 TiB");
  CHECK(format_size(0) == "0 B");
  CHECK(format_size(kKi - 1) == "1023 B");
  CHECK(format_size(kKi + kKi / 8) == "1.125 KiB");
}

TEST_CASE("format_bandwidth prints GB/s, or Gb/s when bytes/s is not whole", "[units][format]") {
  using collsim::format_bandwidth;
  CHECK(format_bandwidth(Bandwidth{8ull * 300'000'000'000}) == "300 GB/s");
  CHECK(format_bandwidth(Bandwidth{200'000'000'000}) == "25 GB/s");
  CHECK(format_bandwidth(Bandwidth{8ull * 12'500'000'000}) == "12.5 GB/s");
  CHECK(format_bandwidth(Bandwidth{8ull * 31'500'000'000}) == "31.5 GB/s");
  CHECK(format_bandwidth(Bandwidth{12'500'000'004}) == "12.500000004 Gb/s");
  CHECK(format_bandwidth(Bandwidth{1}) == "0.000000001 Gb/s");
}

TEST_CASE("format_time and format_time_us_exact print exact digits", "[units][format]") {
  using collsim::format_time;
  using collsim::format_time_us_exact;
  CHECK(format_time(Time{1'500'000}) == "1.5 us");
  CHECK(format_time(Time{700'000}) == "700 ns");
  CHECK(format_time(Time{2'129'804'000}) == "2.129804 ms");
  CHECK(format_time(Time{1'000'000'000'000}) == "1 s");
  CHECK(format_time(Time{3}) == "3 ps");
  CHECK(format_time(Time{0}) == "0 ps");
  CHECK(format_time(Time{-1'500'000}) == "-1.5 us");
  CHECK(format_time_us_exact(Time{2'129'804'160'000}) == "2129804.16");
  CHECK(format_time_us_exact(Time{87'400'320}) == "87.40032");
  CHECK(format_time_us_exact(Time{0}) == "0");
  CHECK(format_time_us_exact(Time{1}) == "0.000001");
  CHECK(format_time_us_exact(Time{-1}) == "-0.000001");
  CHECK(format_time_us_exact(Time{5'000'000}) == "5");
}

TEST_CASE("round trips: sizes through decimal text, latencies through format_time", "[units][roundtrip]") {
  using collsim::format_time;
  using collsim::parse_latency;
  using collsim::parse_size;
  std::vector<Bytes> sizes;
  for (Bytes n = 0; n < 2000; ++n) sizes.push_back(n);
  for (int shift = 10; shift < 64; ++shift) {
    const Bytes p = Bytes{1} << shift;
    sizes.insert(sizes.end(), {p - 1, p, p + 1, p + p / 3});
  }
  sizes.push_back(std::numeric_limits<Bytes>::max());
  for (Bytes n : sizes) {
    INFO("n = " << n);
    CHECK(parse_size(std::to_string(n)) == n);
  }

  std::vector<std::int64_t> times;
  for (std::int64_t t = 0; t < 2000; ++t) times.push_back(t);
  std::int64_t p = 1;
  for (int digits = 1; digits <= 18; ++digits) {
    p *= 10;
    times.insert(times.end(), {p - 1, p, p + 1, p + p / 7, 3 * p - 11});
  }
  times.push_back(std::numeric_limits<std::int64_t>::max() - 1);
  times.push_back(std::numeric_limits<std::int64_t>::max());
  for (std::int64_t t : times) {
    std::string text = format_time(Time{t});
    std::erase(text, ' ');
    INFO("t = " << t << " ps, text \"" << text << "\"");
    CHECK(parse_latency(text) == Time{t});
  }
}

TEST_CASE("round trip: bandwidths through format_bandwidth", "[units][roundtrip]") {
  using collsim::format_bandwidth;
  using collsim::parse_bandwidth;
  std::vector<std::uint64_t> rates;
  for (std::uint64_t b = 1; b < 2000; ++b) rates.push_back(b);
  std::uint64_t p = 1;
  for (int digits = 1; digits <= 19; ++digits) {
    p *= 10;
    rates.insert(rates.end(), {p - 1, p, p + 1, p + p / 7, 8 * (p / 10) + 3});
  }
  rates.push_back(std::numeric_limits<std::uint64_t>::max() - 1);
  for (std::uint64_t b : rates) {
    const std::string text = format_bandwidth(Bandwidth{b});
    INFO(b << " bit/s, text \"" << text << "\"");
    CHECK(parse_bandwidth(text) == Bandwidth{b});
  }
}

TEST_CASE("bandwidth_from_bytes_per_s and latency_from_seconds", "[units][numbers]") {
  using collsim::bandwidth_from_bytes_per_s;
  using collsim::latency_from_seconds;
  CHECK(bandwidth_from_bytes_per_s(25e9) == Bandwidth{8ull * 25'000'000'000});
  CHECK(bandwidth_from_bytes_per_s(31.5e9) == Bandwidth{8ull * 31'500'000'000});
  CHECK(bandwidth_from_bytes_per_s(1.0) == Bandwidth{8});
  CHECK(latency_from_seconds(7e-7) == Time{700'000});
  CHECK(latency_from_seconds(1e-6) == Time{1'000'000});
  CHECK(latency_from_seconds(0.0) == Time{0});
  CHECK(latency_from_seconds(1.5) == Time{1'500'000'000'000});

  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf, -inf, -1.0, -25e9, 0.0, 0.01}) {
    INFO("bytes/s " << bad);
    CHECK_THROWS_AS(bandwidth_from_bytes_per_s(bad), UnitError);
  }
  for (double bad : {nan, inf, -inf, -1e-6, -1.0, 1e10}) {
    INFO("seconds " << bad);
    CHECK_THROWS_AS(latency_from_seconds(bad), UnitError);
  }
}

TEST_CASE("saturating conversions clamp out-of-range and NaN doubles instead of overflowing", "[units][saturate]") {
  using collsim::saturating_cast;
  constexpr auto i64max = std::numeric_limits<std::int64_t>::max();
  constexpr auto i64min = std::numeric_limits<std::int64_t>::min();
  // In range: truncation toward zero, as static_cast.
  CHECK(saturating_cast<std::int64_t>(1.9) == 1);
  CHECK(saturating_cast<std::int64_t>(-1.9) == -1);
  // 2^63 - 1024 is the largest double below 2^63 (53-bit mantissa): it fits; 2^63 itself does not.
  CHECK(saturating_cast<std::int64_t>(9223372036854774784.0) == 9223372036854774784);
  CHECK(saturating_cast<std::int64_t>(9223372036854775808.0) == i64max);
  CHECK(saturating_cast<std::int64_t>(1e300) == i64max);
  CHECK(saturating_cast<std::int64_t>(std::numeric_limits<double>::infinity()) == i64max);
  CHECK(saturating_cast<std::int64_t>(-std::numeric_limits<double>::infinity()) == i64min);
  CHECK(saturating_cast<std::int64_t>(-1e300) == i64min);
  CHECK(saturating_cast<std::int64_t>(std::nan("")) == i64max);
  // Unsigned: double(2^64 - 1) is 2^64, one past the range.
  CHECK(saturating_cast<std::uint64_t>(static_cast<double>(std::numeric_limits<std::uint64_t>::max())) ==
        std::numeric_limits<std::uint64_t>::max());
  CHECK(saturating_cast<std::uint64_t>(-5.0) == 0);
  CHECK(saturating_cast<std::uint32_t>(4294967295.0) == 4294967295u);
  CHECK(saturating_cast<std::uint32_t>(4294967296.0) == 4294967295u);
  // Picoseconds: rounded up (or to nearest), the clock's end past 2^63 ps.
  CHECK(collsim::saturating_ceil_ps(1.2) == Time{2});
  CHECK(collsim::saturating_round_ps(1.2) == Time{1});
  CHECK(collsim::saturating_ceil_ps(1e22) == Time::max());
  CHECK(collsim::time_saturated(collsim::saturating_ceil_ps(std::nan(""))));
  CHECK_FALSE(collsim::time_saturated(collsim::saturating_ceil_ps(9.2e18)));
}
}  // namespace units_test
