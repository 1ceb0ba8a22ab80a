// Fuzzes the nccl-tests log reader (validation/nccl_log.cpp, `collsim compare LOG`): a log is either
// read or refused with NcclLogError, and what is read keeps the promises of nccl_log.hpp (rows in
// file order, none missing, times above 0, bandwidths finite and not negative).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "validation/nccl_log.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using collsim::fuzz::require;
using namespace collsim::validation;

void check_log(const NcclLog& log) {
  require(!log.rows.empty(), "a log read has rows");
  std::size_t line = 0;
  for (const NcclRow& r : log.rows) {
    require(r.line > line, "rows are in file order");
    line = r.line;
    require(std::isfinite(r.time_us) && r.time_us > 0, "a row's time is finite and above 0");
    require(std::isfinite(r.algbw_GBps) && r.algbw_GBps >= 0, "a row's algbw is finite and not negative");
    require(std::isfinite(r.busbw_GBps) && r.busbw_GBps >= 0, "a row's busbw is finite and not negative");
  }
  if (log.ranks) require(*log.ranks >= 1, "a log that names its ranks has at least one");
  if (!log.devices.empty()) require(log.ranks == log.devices.size(), "one device per \"# Rank\" line");
  (void)collective_of_test(log.test);
}

}  // namespace

/// libFuzzer's entry point: the input as an nccl-tests log.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    check_log(parse_nccl_log(collsim::fuzz::as_text(data, size), "fuzz"));
  } catch (const NcclLogError&) {
  }
  return 0;
}
