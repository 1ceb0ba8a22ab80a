// Float-to-integer conversions that cannot overflow. Converting a double that is NaN or outside an
// integer type's range with static_cast (or llround) is undefined behaviour (C++20 [conv.fpint]):
// a formula evaluated in floating point (NCCL's tuning model, a calibration's scaling, a measured
// rate) must go through these instead, and its caller decides what a clamped value means.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>

#include "sim/units/units.hpp"

namespace collsim {

/// `v` truncated toward zero into the integer type I, clamped to I's range: at or above I's
/// maximum gives the maximum, at or below its minimum the minimum; NaN gives the maximum (an
/// undefined quantity counts as too large, never as a small number).
template <std::integral I>
constexpr I saturating_cast(double v) noexcept {
  // double(max) is max + 1 for 64-bit types (2^63, 2^64: exact powers of two) and max itself for
  // narrower ones; either way every v below it converts without overflow.
  constexpr double hi = static_cast<double>(std::numeric_limits<I>::max());
  constexpr double lo = static_cast<double>(std::numeric_limits<I>::min());
  if (!(v < hi)) return std::numeric_limits<I>::max();
  if (v <= lo) return std::numeric_limits<I>::min();
  return static_cast<I>(v);
}

/// A time from a picosecond count held in a double, rounded up to the next whole picosecond and
/// clamped to [Time::min(), Time::max()] (Time::max() = 2^63-1 ps, about 106 days, the clock's end);
/// NaN gives Time::max(). A caller reads Time::max() as "does not fit on the clock" (time_saturated).
inline Time saturating_ceil_ps(double ps) noexcept { return Time{saturating_cast<std::int64_t>(std::ceil(ps))}; }

/// As saturating_ceil_ps, rounded to the nearest picosecond (halves away from zero).
inline Time saturating_round_ps(double ps) noexcept { return Time{saturating_cast<std::int64_t>(std::round(ps))}; }

/// True for the clock's end, Time::max(): what a saturated conversion gives for a time that does not fit.
constexpr bool time_saturated(Time t) noexcept { return t == Time::max(); }

/// a + b for non-negative times (link latencies), Time::max() where the sum would overflow.
constexpr Time saturating_add(Time a, Time b) noexcept { return a > Time::max() - b ? Time::max() : a + b; }

}  // namespace collsim
