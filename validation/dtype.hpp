// The element types and reduction operators of the CPU replay, named as on the command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/units/enum_names.hpp"

namespace collsim::validation {

/// Element type of the replayed buffers (the nccl-tests -d types collsim replays).
enum class DType : std::uint8_t { Float32, Float64, Float16, BFloat16, Int32, UInt8 };

/// Reduction operator (nccl-tests -o): all four are associative and commutative, so any order of
/// reduction an algorithm chooses computes the same collective.
enum class ReduceOp : std::uint8_t { Sum, Min, Max, Prod };

/// The --dtype names in enum order, read back ignoring case; the aliases are nccl-tests' spellings
/// and the short ones.
inline constexpr auto kDTypeNames = make_enum_names<DType>({{DType::Float32, "float32", {"float", "fp32"}},
                                                            {DType::Float64, "float64", {"double", "fp64"}},
                                                            {DType::Float16, "float16", {"half", "fp16"}},
                                                            {DType::BFloat16, "bfloat16", {"bf16"}},
                                                            {DType::Int32, "int32"},
                                                            {DType::UInt8, "uint8", {"u8"}}},
                                                           NameMatch::IgnoreCase);

/// The --op names in enum order, read back ignoring case.
inline constexpr auto kReduceOpNames = make_enum_names<ReduceOp>(
    {{ReduceOp::Sum, "sum"}, {ReduceOp::Min, "min"}, {ReduceOp::Max, "max"}, {ReduceOp::Prod, "prod"}},
    NameMatch::IgnoreCase);

/// "float32", "float64", "float16", "bfloat16", "int32", "uint8".
std::string_view dtype_name(DType t) noexcept;
/// Reads a dtype name; also accepts nccl-tests' spellings "float", "double", "half", and "fp32",
/// "fp64", "fp16", "bf16" (and "u8"). Case does not matter. nullopt for anything else.
std::optional<DType> parse_dtype(std::string_view text);
/// "float32, float64, float16, bfloat16, int32, uint8", for error messages.
std::string dtype_names_list();
/// Bytes per element: 4, 8, 2, 2, 4, 1.
std::uint32_t dtype_size(DType t) noexcept;
/// True for the four floating-point types.
bool is_floating(DType t) noexcept;
/// Significand precision p in bits, the implicit bit included (IEEE 754): float64 53, float32 24,
/// float16 11, bfloat16 8. Integers up to 2^p are exact; the unit roundoff is 2^-p. 0 for integers.
std::uint32_t dtype_precision(DType t) noexcept;

/// "sum", "min", "max", "prod".
std::string_view reduce_op_name(ReduceOp op) noexcept;
/// Reads an operator name (case does not matter); nullopt for anything else.
std::optional<ReduceOp> parse_reduce_op(std::string_view text);
/// "sum, min, max, prod", for error messages.
std::string reduce_op_names_list();

}  // namespace collsim::validation
