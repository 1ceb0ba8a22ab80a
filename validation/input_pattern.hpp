// The numbers the CPU replay starts from, and how far a floating-point result may stray from the
// exact one because an algorithm adds in a different order.
//
// Input: element e of rank q's data buffer holds, with h = splitmix64(q · 2^40 + e),
//   sum, min, max:  1 + floor(h · m / 2^64), an integer in 1..m
//   prod:           -1 when h is odd, else +1 (255 and 1 in uint8)
// with m = 255 for uint8, 2^16 for int32, and min(2^16, max(1, floor(2^p / N))) for a floating type
// of precision p (dtype.hpp) and N ranks. The hash mixes rank and position, so a block delivered
// to the wrong rank or place shows up as a wrong value; the small range keeps float sums exact.
#pragma once

#include <cstdint>

#include "sim/schedule/schedule.hpp"
#include "sim/units/int128.hpp"
#include "validation/dtype.hpp"

namespace collsim::validation {

/// SplitMix64's output function (Steele, Lea & Flood 2014): a fixed, well-mixed 64-bit hash.
inline std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// The replay's deterministic input for one dtype, operator and rank count.
class InputPattern {
 public:
  /// Precondition: nranks >= 1.
  InputPattern(DType dtype, ReduceOp op, sched::Rank nranks) noexcept;
  /// The value of element `element` of rank `rank`'s data buffer, as an exact integer (see above).
  [[nodiscard]] std::int64_t value(sched::Rank rank, std::uint64_t element) const noexcept {
    const std::uint64_t h = splitmix64((std::uint64_t{rank} << 40) + element);
    if (op_ == ReduceOp::Prod) return (h & 1u) != 0 ? -1 : 1;
    // floor(h · m / 2^64) is in 0..m-1 and as uniform as h mod m, without a division (Lemire 2019).
    return 1 + static_cast<std::int64_t>((u128{h} * static_cast<std::uint64_t>(range_)) >> 64);
  }
  /// m, the largest value of sum/min/max inputs (prod inputs are ±1).
  [[nodiscard]] std::int64_t range() const noexcept { return range_; }

 private:
  ReduceOp op_;
  std::int64_t range_;
};

/// The most a correct schedule's float sum of `terms` inputs may differ from the exact `sum`,
/// when every input lies in 0..`max_value` (so |x| sums to `sum`). Two regimes:
///  * terms · max_value <= 2^p: every partial sum any summation tree forms from those inputs is an
///    integer in 0..2^p, exactly representable, so no addition rounds: 0;
///  * otherwise, with u = 2^-p: each addition of two non-negative partial sums multiplies their
///    relative error by at most (1 + u), so a sum of `terms` inputs in any order lies within
///    ((1 + u)^(terms-1) - 1) · sum of the exact one (to first order (terms-1)·u·sum|x|, Higham,
///    "Accuracy and Stability of Numerical Algorithms", 2002, eq. 4.6, which also holds for any order).
/// 0 for the integer types, whose wrapped sums are exact.
double sum_tolerance(DType dtype, std::uint64_t terms, std::int64_t max_value, double sum) noexcept;

/// sum_tolerance(dtype, terms, max_value, sum) / sum: the relative margin, the same for every
/// element of a slot (0 in the exact regime).
double sum_tolerance_factor(DType dtype, std::uint64_t terms, std::int64_t max_value) noexcept;

}  // namespace collsim::validation
