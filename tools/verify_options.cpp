#include "tools/verify_options.hpp"

#include <fmt/format.h>

#include "run/text_request.hpp"
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
  return run::replay_options(verify, dtype, op);
}

}  // namespace collsim::cli
