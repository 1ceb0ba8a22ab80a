// The --verify, --dtype and --op flags: replay the schedule on CPU buffers before simulating it.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/units/units.hpp"
#include "validation/cpu_replay.hpp"

namespace collsim::cli {

struct VerifyOptions {
  bool verify = false;
  std::string dtype;
  std::string op;

  /// Registers --verify, --dtype and --op on `cmd`.
  void add_to(CLI::App& cmd);
  /// The replay to run, or nullopt without --verify (run::replay_options). Throws
  /// run::RequestError for an unknown --dtype or --op, or for --op without --verify.
  [[nodiscard]] std::optional<validation::ReplayOptions> replay_options() const;
  /// Bytes per element of --dtype (4 for the default float32), which algorithms cut buffers in
  /// (algo::Request::element_size). Throws UsageError for an unknown --dtype.
  [[nodiscard]] Bytes element_size() const;
};

}  // namespace collsim::cli
