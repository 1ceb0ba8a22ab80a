#include "validation/dtype.hpp"

namespace collsim::validation {

static_assert(kDTypeNames.dense() && kDTypeNames.distinct());
static_assert(kReduceOpNames.dense() && kReduceOpNames.distinct());

std::string_view dtype_name(DType t) noexcept { return kDTypeNames.name(t); }

std::optional<DType> parse_dtype(std::string_view text) { return kDTypeNames.parse(text); }

std::string dtype_names_list() { return kDTypeNames.list(); }

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

std::string_view reduce_op_name(ReduceOp op) noexcept { return kReduceOpNames.name(op); }

std::optional<ReduceOp> parse_reduce_op(std::string_view text) { return kReduceOpNames.parse(text); }

std::string reduce_op_names_list() { return kReduceOpNames.list(); }

}  // namespace collsim::validation
