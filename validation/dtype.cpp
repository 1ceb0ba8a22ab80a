#include "validation/dtype.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace collsim::validation {
namespace {

std::string lower(std::string_view text) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

std::string_view dtype_name(DType t) noexcept {
  switch (t) {
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Int32: return "int32";
    case DType::UInt8: return "uint8";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, DType>, 14> kNames{{
      {"float32", DType::Float32}, {"float", DType::Float32}, {"fp32", DType::Float32},
      {"float64", DType::Float64}, {"double", DType::Float64}, {"fp64", DType::Float64},
      {"float16", DType::Float16}, {"half", DType::Float16}, {"fp16", DType::Float16},
      {"bfloat16", DType::BFloat16}, {"bf16", DType::BFloat16},
      {"int32", DType::Int32}, {"uint8", DType::UInt8}, {"u8", DType::UInt8},
  }};
  const std::string s = lower(text);
  for (const auto& [name, t] : kNames)
    if (s == name) return t;
  return std::nullopt;
}

std::string_view dtype_names_list() noexcept { return "float32, float64, float16, bfloat16, int32, uint8"; }

std::uint32_t dtype_size(DType t) noexcept {
  switch (t) {
    case DType::Float64: return 8;
    case DType::Float32:
    case DType::Int32: return 4;
    case DType::Float16:
    case DType::BFloat16: return 2;
    case DType::UInt8: return 1;
  }
  return 1;
}

bool is_floating(DType t) noexcept { return t != DType::Int32 && t != DType::UInt8; }

std::uint32_t dtype_precision(DType t) noexcept {
  switch (t) {
    case DType::Float64: return 53;
    case DType::Float32: return 24;
    case DType::Float16: return 11;
    case DType::BFloat16: return 8;
    default: return 0;
  }
}

std::string_view reduce_op_name(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Min: return "min";
    case ReduceOp::Max: return "max";
    case ReduceOp::Prod: return "prod";
  }
  return "?";
}

std::optional<ReduceOp> parse_reduce_op(std::string_view text) {
  const std::string s = lower(text);
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max, ReduceOp::Prod})
    if (s == reduce_op_name(op)) return op;
  return std::nullopt;
}

}  // namespace collsim::validation
