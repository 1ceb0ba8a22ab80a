// Error by size band (reports/error_bands): band edges, and medians and maxima worked out by hand.
#include <catch2/catch.hpp>

#include "reports/error_bands.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace error_bands_test {

using collsim::reports::error_band;
using collsim::reports::error_pct;
using collsim::reports::SizedError;
using collsim::reports::summarize_error_bands;

TEST_CASE("sizes fall in the bands below 64 KiB, 64 KiB to 16 MiB, and above 16 MiB", "[compare][bands]") {
  CHECK(error_band(0) == 0);
  CHECK(error_band(65535) == 0);
  CHECK(error_band(65536) == 1);           // 64 KiB belongs to the middle band
  CHECK(error_band(16u << 20) == 1);       // and so does 16 MiB
  CHECK(error_band((16u << 20) + 1) == 2);
  CHECK(error_band(std::uint64_t{1} << 40) == 2);
}

TEST_CASE("error_pct is (predicted - measured) / measured x 100", "[compare][bands]") {
  CHECK(error_pct(12.0, 10.0) == Approx(20.0));
  CHECK(error_pct(5.0, 10.0) == Approx(-50.0));
  CHECK(error_pct(10.0, 10.0) == 0.0);
}

TEST_CASE("band medians and maxima of |error|, by hand", "[compare][bands]") {
  // small: |-20|, |+25|          -> median (20 + 25) / 2 = 22.5, max 25
  // middle: |-50|, |+60|, |0|    -> median 50 (odd count: the middle one), max 60
  // large: none                  -> no statistics
  // all: 0, 20, 25, 50, 60       -> median 25, max 60
  const std::vector<SizedError> rows{{4096, -20}, {32768, 25}, {65536, -50}, {1 << 20, 60}, {16 << 20, 0}};
  const auto bands = summarize_error_bands(rows);
  REQUIRE(bands.size() == 4);
  CHECK(bands[0].band == "<64KiB");
  CHECK(bands[0].rows == 2);
  CHECK(bands[0].median_abs_error_pct == 22.5);
  CHECK(bands[0].max_abs_error_pct == 25.0);
  CHECK(bands[1].band == "64KiB-16MiB");
  CHECK(bands[1].rows == 3);
  CHECK(bands[1].median_abs_error_pct == 50.0);
  CHECK(bands[1].max_abs_error_pct == 60.0);
  CHECK(bands[2].band == ">16MiB");
  CHECK(bands[2].rows == 0);
  CHECK_FALSE(bands[2].median_abs_error_pct.has_value());
  CHECK_FALSE(bands[2].max_abs_error_pct.has_value());
  CHECK(bands[3].band == "all");
  CHECK(bands[3].rows == 5);
  CHECK(bands[3].median_abs_error_pct == 25.0);
  CHECK(bands[3].max_abs_error_pct == 60.0);
}
}  // namespace error_bands_test
