// How the CPU replay stores and combines one element of each dtype (validation/dtype.hpp).
//
// Each type has: Storage (the bits kept in a buffer), encode (an exact integer to Storage),
// decode (Storage to double, exact for every type here), combine (the reduction, rounded to the
// type after every operation as a GPU kernel storing that type does) and text (for messages).
// Integer sums and products wrap modulo 2^bits (done in unsigned arithmetic, so no overflow is
// undefined), which is associative and commutative like the mathematical operation.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "validation/dtype.hpp"
#include "validation/half.hpp"

namespace collsim::validation {
namespace element_detail {

template <class T>
constexpr T apply(ReduceOp op, T a, T b) noexcept {
  switch (op) {
    case ReduceOp::Sum: return static_cast<T>(a + b);
    case ReduceOp::Min: return b < a ? b : a;
    case ReduceOp::Max: return a < b ? b : a;
    case ReduceOp::Prod: return static_cast<T>(a * b);
  }
  return a;
}

}  // namespace element_detail

/// float32: native float arithmetic (IEEE 754 binary32, round to nearest even).
struct Float32Element {
  using Storage = float;
  static Storage encode(std::int64_t v) noexcept { return static_cast<float>(v); }
  static double decode(Storage s) noexcept { return s; }
  static Storage combine(ReduceOp op, Storage a, Storage b) noexcept { return element_detail::apply(op, a, b); }
  static std::string text(Storage s) { return fmt::format("{}", s); }
};

/// float64: native double arithmetic.
struct Float64Element {
  using Storage = double;
  static Storage encode(std::int64_t v) noexcept { return static_cast<double>(v); }
  static double decode(Storage s) noexcept { return s; }
  static Storage combine(ReduceOp op, Storage a, Storage b) noexcept { return element_detail::apply(op, a, b); }
  static std::string text(Storage s) { return fmt::format("{}", s); }
};

/// float16 (binary16) bits; each operation in float, rounded back once (exact: see half.hpp).
struct Float16Element {
  using Storage = std::uint16_t;
  static Storage encode(std::int64_t v) noexcept { return float_to_half(static_cast<float>(v)); }
  static double decode(Storage s) noexcept { return half_to_float(s); }
  static Storage combine(ReduceOp op, Storage a, Storage b) noexcept {
    return float_to_half(element_detail::apply(op, half_to_float(a), half_to_float(b)));
  }
  static std::string text(Storage s) { return fmt::format("{}", half_to_float(s)); }
};

/// bfloat16 bits; each operation in float, rounded back once (exact: see half.hpp).
struct BFloat16Element {
  using Storage = std::uint16_t;
  static Storage encode(std::int64_t v) noexcept { return float_to_bfloat16(static_cast<float>(v)); }
  static double decode(Storage s) noexcept { return bfloat16_to_float(s); }
  static Storage combine(ReduceOp op, Storage a, Storage b) noexcept {
    return float_to_bfloat16(element_detail::apply(op, bfloat16_to_float(a), bfloat16_to_float(b)));
  }
  static std::string text(Storage s) { return fmt::format("{}", bfloat16_to_float(s)); }
};

/// int32: two's complement; sum and product wrap modulo 2^32.
struct Int32Element {
  using Storage = std::int32_t;
  static Storage encode(std::int64_t v) noexcept { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); }
  static double decode(Storage s) noexcept { return s; }
  static Storage combine(ReduceOp op, Storage a, Storage b) noexcept {
    if (op == ReduceOp::Min || op == ReduceOp::Max) return element_detail::apply(op, a, b);
    return static_cast<std::int32_t>(
        element_detail::apply(op, static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)));
  }
  static std::string text(Storage s) { return fmt::format("{}", s); }
};

/// uint8: sum and product modulo 256.
struct UInt8Element {
  using Storage = std::uint8_t;
  static Storage encode(std::int64_t v) noexcept { return static_cast<std::uint8_t>(static_cast<std::uint64_t>(v)); }
  static double decode(Storage s) noexcept { return s; }
  static Storage combine(ReduceOp op, Storage a, Storage b) noexcept {
    // Integer promotion makes a + b an int; the cast back keeps it modulo 256.
    return static_cast<std::uint8_t>(element_detail::apply(op, static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)));
  }
  static std::string text(Storage s) { return fmt::format("{}", s); }
};

}  // namespace collsim::validation
