// What every libFuzzer harness of tests/fuzz shares: the input as text, and a broken invariant
// turned into a crash that libFuzzer reports (and saves the input of).
//
// A harness calls one parser and catches only the error type that parser documents for bad input
// (UnitError, TopologyError, ScheduleFileError, NcclLogError). Anything else (another exception, an
// ASan or UBSan report, a hang, a failed invariant) escapes and is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

namespace collsim::fuzz {

/// The fuzzer's bytes as text; the parsers take any bytes, NULs and invalid UTF-8 included.
[[nodiscard]] inline std::string_view as_text(const std::uint8_t* data, std::size_t size) noexcept {
  return {reinterpret_cast<const char*>(data), size};
}

/// Aborts naming `what` when `ok` is false: libFuzzer counts an abort as a crash.
inline void require(bool ok, std::string_view what) noexcept {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

/// `f()`, which must not throw `Error`: for text that a parser wrote out from a value it had read,
/// where a refusal is a finding, not bad input. Aborts naming `what` and the error otherwise.
template <class Error, class F>
auto must_accept(F&& f, std::string_view what) {
  try {
    return std::forward<F>(f)();
  } catch (const Error& e) {
    std::fprintf(stderr, "fuzz invariant broken: %.*s: %s\n", static_cast<int>(what.size()), what.data(), e.what());
    std::abort();
  }
}

}  // namespace collsim::fuzz
