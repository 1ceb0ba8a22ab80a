// IEEE 754 binary16 (float16) and bfloat16, emulated in software: conversions to and from float
// with round-to-nearest-even, so the CPU replay can run a reduction in the 16-bit types exactly as
// a GPU that stores them would (no compiler extension, no library). Inline: the replay converts
// every element it adds.
//
// Arithmetic is done in float and rounded back once: float's 24-bit significand is at least
// 2p + 2 bits for both types (p = 11 and 8), so rounding the float result of +, * to the 16-bit
// type equals rounding the exact result (Figueroa, "When is double rounding innocuous?", 1995).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace collsim::validation {

/// The binary16 bits nearest to `f` (ties to even); overflow gives infinity, NaN stays a quiet NaN.
inline std::uint16_t float_to_half(float f) noexcept {
  const auto x = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t exponent = (x >> 23) & 0xffu;
  const std::uint32_t mantissa = x & 0x7fffffu;
  if (exponent == 0xffu)  // infinity, or NaN (kept quiet and non-zero)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (mantissa != 0 ? 0x200u | (mantissa >> 13) : 0u));
  const int e = static_cast<int>(exponent) - 127 + 15;  // the binary16 biased exponent
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    // Subnormal result m · 2^-24 with m = (1.mantissa · 2^23) >> (14 - e); below 2^-25 it rounds to 0.
    if (e < -10) return sign;
    const std::uint32_t full = mantissa | 0x800000u;
    const auto shift = static_cast<std::uint32_t>(14 - e);
    std::uint32_t m = full >> shift;
    const std::uint32_t rest = full & ((1u << shift) - 1u);
    const std::uint32_t half_way = 1u << (shift - 1u);
    if (rest > half_way || (rest == half_way && (m & 1u) != 0)) ++m;  // a carry makes it the smallest normal
    return static_cast<std::uint16_t>(sign | m);
  }
  auto h = static_cast<std::uint32_t>(sign) | (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) != 0)) ++h;  // a carry into the exponent is right, up to inf
  return static_cast<std::uint16_t>(h);
}

/// The exact float value of binary16 bits `h` (subnormals, infinities and NaN included).
inline float half_to_float(std::uint16_t h) noexcept {
  const std::uint32_t sign = (static_cast<std::uint32_t>(h) & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

/// The bfloat16 bits nearest to `f` (ties to even); NaN stays a quiet NaN.
inline std::uint16_t float_to_bfloat16(float f) noexcept {
  const auto x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu) != 0) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  // Adding 0x7fff plus the lowest kept bit rounds to nearest, ties to even; a carry may reach infinity.
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/// The exact float value of bfloat16 bits `b` (the upper half of a float).
inline float bfloat16_to_float(std::uint16_t b) noexcept { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

}  // namespace collsim::validation
