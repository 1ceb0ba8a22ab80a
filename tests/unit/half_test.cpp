// float16 and bfloat16 conversions (validation/half.hpp): values from the IEEE 754 definitions.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "validation/half.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace half_test {

using namespace collsim::validation;

TEST_CASE("float_to_half rounds to the nearest binary16, ties to even", "[half]") {
  CHECK(float_to_half(1.0f) == 0x3c00);        // exponent 15, mantissa 0
  CHECK(float_to_half(-2.0f) == 0xc000);
  CHECK(float_to_half(0.0f) == 0x0000);
  CHECK(float_to_half(-0.0f) == 0x8000);
  CHECK(float_to_half(65504.0f) == 0x7bff);    // the largest finite binary16
  CHECK(float_to_half(65519.0f) == 0x7bff);    // below the midpoint 65520
  CHECK(float_to_half(65520.0f) == 0x7c00);    // the midpoint: ties to the even neighbour, infinity
  CHECK(float_to_half(1e6f) == 0x7c00);
  CHECK(float_to_half(std::ldexp(1.0f, -14)) == 0x0400);                          // the smallest normal
  CHECK(float_to_half(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -24)) == 0x03ff);  // the largest subnormal
  CHECK(float_to_half(std::ldexp(1.0f, -24)) == 0x0001);                          // the smallest subnormal
  CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);                          // half of it: tie, to even 0
  CHECK(float_to_half(std::ldexp(3.0f, -26)) == 0x0001);                          // 0.75 of it: rounds up
  CHECK(float_to_half(std::ldexp(3.0f, -25)) == 0x0002);                          // 1.5 of it: tie, to even 2
  CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);      // tie between 0x3c00 and 0x3c01
  CHECK(float_to_half(1.0f + std::ldexp(3.0f, -11)) == 0x3c02);      // tie between 0x3c01 and 0x3c02
  CHECK(float_to_half(2049.0f) == 0x6800);  // integers above 2^11 = 2048 step by 2: tie, to even 2048
  CHECK(float_to_half(2051.0f) == 0x6802);  // tie between 2050 and 2052: 2052
  CHECK(float_to_half(std::numeric_limits<float>::infinity()) == 0x7c00);
  const std::uint16_t nan = float_to_half(std::numeric_limits<float>::quiet_NaN());
  CHECK((nan & 0x7c00) == 0x7c00);
  CHECK((nan & 0x03ff) != 0);
}

TEST_CASE("half_to_float is exact and every binary16 value survives the round trip", "[half]") {
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(half_to_float(0x7bff) == 65504.0f);
  CHECK(half_to_float(0xc000) == -2.0f);
  CHECK(half_to_float(0x3555) == 0.333251953125f);  // (1 + 0x155/1024) / 4
  CHECK(std::isinf(half_to_float(0x7c00)));
  CHECK(std::isnan(half_to_float(0x7e00)));
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    if ((h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0) continue;  // NaNs need not keep their payload
    if (float_to_half(half_to_float(static_cast<std::uint16_t>(h))) != h) FAIL("round trip of 0x" << std::hex << h);
  }
}

TEST_CASE("bfloat16 keeps float's exponent and rounds the mantissa to 7 bits, ties to even", "[half]") {
  CHECK(float_to_bfloat16(1.0f) == 0x3f80);
  CHECK(float_to_bfloat16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);  // tie between 1 and 1 + 2^-7
  CHECK(float_to_bfloat16(1.0f + std::ldexp(3.0f, -8)) == 0x3f82);  // tie between 0x3f81 and 0x3f82
  CHECK(float_to_bfloat16(257.0f) == 0x4380);  // integers above 2^8 = 256 step by 2: tie, to even 256
  CHECK(float_to_bfloat16(std::numeric_limits<float>::max()) == 0x7f80);  // rounds up to infinity
  CHECK(bfloat16_to_float(0x4380) == 256.0f);
  CHECK(bfloat16_to_float(0xbf80) == -1.0f);
  const std::uint16_t nan = float_to_bfloat16(std::numeric_limits<float>::quiet_NaN());
  CHECK(std::isnan(bfloat16_to_float(nan)));
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    if ((b & 0x7f80) == 0x7f80 && (b & 0x007f) != 0) continue;
    if (float_to_bfloat16(bfloat16_to_float(static_cast<std::uint16_t>(b))) != b) FAIL("round trip of 0x" << std::hex << b);
  }
}
}  // namespace half_test
