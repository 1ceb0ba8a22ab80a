// The subcommands: their options, registration on the CLI11 app, and what they do.
#pragma once

#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/fidelity_options.hpp"
#include "tools/options.hpp"
#include "tools/verify_options.hpp"

namespace collsim::cli {

struct SimulateOptions {
  TopologyOptions topology;
  AlgorithmOptions algorithm;
  std::string size;
  std::string ranks;
  std::string format = "table";
  std::string network = "flow";
  VerifyOptions verify;
  FidelityOptions fidelity;  ///< --protocol, --channels, --slice, --params, --model
  std::string schedule;       ///< --schedule FILE: simulate this schedule file instead of building one
  std::string save_schedule;  ///< --save-schedule FILE, or "-" for standard output
  std::vector<std::string> given;  ///< the flags given on the command line that have defaults, e.g. "--format"
  /// True when `flag` (one of those tracked in `given`) was on the command line.
  [[nodiscard]] bool was_given(std::string_view flag) const {
    return std::find(given.begin(), given.end(), flag) != given.end();
  }
};
CLI::App* add_simulate(CLI::App& app, SimulateOptions& options);
int run_simulate(const SimulateOptions& options, std::ostream& out, std::ostream& err);

struct ExplainOptions {
  AlgorithmOptions algorithm;
  std::string ranks = "3";
  std::string elements = "6";
  std::string nodes;
};
CLI::App* add_explain(CLI::App& app, ExplainOptions& options);
int run_explain(const ExplainOptions& options, std::ostream& out);

struct AlgorithmsOptions {
  std::string format = "table";
};
CLI::App* add_algorithms(CLI::App& app, AlgorithmsOptions& options);
int run_algorithms(const AlgorithmsOptions& options, std::ostream& out);

struct TopoOptions {
  TopologyOptions topology;
};
CLI::App* add_topo(CLI::App& app, TopoOptions& options);
int run_topo(const TopoOptions& options, std::ostream& out);

}  // namespace collsim::cli
