#include "validation/input_pattern.hpp"

#include <algorithm>
#include <cmath>

namespace collsim::validation {

InputPattern::InputPattern(DType dtype, ReduceOp op, sched::Rank nranks) noexcept : op_(op) {
  constexpr std::int64_t kCap = std::int64_t{1} << 16;
  switch (dtype) {
    case DType::UInt8: range_ = 255; break;
    case DType::Int32: range_ = kCap; break;
    default:
      range_ = std::clamp<std::int64_t>((std::int64_t{1} << dtype_precision(dtype)) / std::max<sched::Rank>(nranks, 1),
                                        1, kCap);
      break;
  }
}

double sum_tolerance_factor(DType dtype, std::uint64_t terms, std::int64_t max_value) noexcept {
  const std::uint32_t p = dtype_precision(dtype);
  if (p == 0 || terms <= 1) return 0;
  // terms · max_value <= 2^p, written to avoid overflow.
  if (max_value <= 0 || terms <= (std::uint64_t{1} << p) / static_cast<std::uint64_t>(max_value)) return 0;
  const double u = std::ldexp(1.0, -static_cast<int>(p));
  return std::expm1(static_cast<double>(terms - 1) * std::log1p(u));
}

double sum_tolerance(DType dtype, std::uint64_t terms, std::int64_t max_value, double sum) noexcept {
  return sum_tolerance_factor(dtype, terms, max_value) * sum;
}

}  // namespace collsim::validation
