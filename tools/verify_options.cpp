#include "tools/verify_options.hpp"

#include <fmt/format.h>

#include "tools/cli.hpp"
#include "tools/options.hpp"

namespace collsim::cli {

void VerifyOptions::add_to(CLI::App& cmd) {
  cmd.add_flag("--verify", verify,
               "Also replay the schedule on CPU buffers and check every rank's result against the collective: "
               "prints `verified`, or the first wrong rank, chunk and element and exits 1. Every element up to "
               "S = 16 MiB; above, the first and last element of every chunk plus a symbolic replay");
  add_value(cmd, "--dtype", dtype,
            "With --verify: element type float32 (default), float64, float16, bfloat16, int32, uint8. uint8 is used "
            "when S or a chunk boundary is not a multiple of the element size");
  add_value(cmd, "--op", op, "With --verify: reduction sum (default), min, max or prod");
}

std::optional<validation::ReplayOptions> VerifyOptions::replay_options() const {
  validation::ReplayOptions r;
  if (!dtype.empty()) {
    const auto t = validation::parse_dtype(dtype);
    if (!t)
      throw UsageError(fmt::format("--dtype: found \"{}\", expected one of: {}", dtype, validation::dtype_names_list()));
    r.dtype = *t;
  }
  if (!op.empty()) {
    const auto o = validation::parse_reduce_op(op);
    if (!o) throw UsageError(fmt::format("--op: found \"{}\", expected one of: sum, min, max, prod", op));
    r.op = *o;
  }
  if (!verify) {
    if (!dtype.empty()) throw UsageError("--dtype: only used with --verify; add --verify");
    if (!op.empty()) throw UsageError("--op: only used with --verify; add --verify");
    return std::nullopt;
  }
  return r;
}

}  // namespace collsim::cli
