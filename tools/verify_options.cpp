#include "tools/verify_options.hpp"

#include <fmt/format.h>

#include "tools/cli.hpp"
#include "tools/option_table.hpp"
#include "tools/options.hpp"

namespace collsim::cli {

void VerifyOptions::add_to(CLI::App& cmd) {
  cmd.add_flag("--verify", verify,
               "Also replay the schedule on CPU buffers and check every rank's result against the collective: "
               "prints `verified`, or the first wrong rank, chunk and element and exits 1. Every element up to "
               "S = 16 MiB; above, the first and last element of every chunk plus a symbolic replay");
  add_shared(cmd, run::Field::Dtype, dtype);
  add_value(cmd, "--op", op, "With --verify: reduction sum (default), min, max or prod");
}

namespace {

validation::DType parsed_dtype(const std::string& text) {
  if (text.empty()) return validation::DType::Float32;
  const auto t = validation::parse_dtype(text);
  if (!t) throw UsageError(fmt::format("--dtype: found \"{}\", expected one of: {}", text, validation::dtype_names_list()));
  return *t;
}

}  // namespace

Bytes VerifyOptions::element_size() const { return validation::dtype_size(parsed_dtype(dtype)); }

std::optional<validation::ReplayOptions> VerifyOptions::replay_options() const {
  validation::ReplayOptions r;
  r.dtype = parsed_dtype(dtype);
  if (!op.empty()) {
    const auto o = validation::parse_reduce_op(op);
    if (!o) throw UsageError(fmt::format("--op: found \"{}\", expected one of: {}", op, validation::reduce_op_names_list()));
    r.op = *o;
  }
  if (!verify) {
    if (!op.empty()) throw UsageError("--op: only used with --verify; add --verify");
    return std::nullopt;
  }
  return r;
}

}  // namespace collsim::cli
