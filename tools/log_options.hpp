// The flags of a log's run, shared by compare and calibrate: LOG, TOPOLOGY or --topology, the
// algorithm, ranks, collective, network and model flags, turned into a run::LogRequest.
#pragma once

#include <CLI/CLI.hpp>

#include "run/log_prediction.hpp"
#include "tools/commands.hpp"

namespace collsim::cli {

/// Registers LOG, TOPOLOGY (and the generator flags), --topology, --algorithm, --ranks,
/// --collective, --network and the fidelity flags but --model on `cmd`.
void add_log_run_flags(CLI::App& cmd, CompareOptions& o);

/// The flags as a request. Throws UsageError for TOPOLOGY and --topology both given, and
/// run::RequestError for a value that does not parse.
[[nodiscard]] run::LogRequest log_request(const CompareOptions& o);

}  // namespace collsim::cli
