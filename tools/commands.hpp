// The subcommands: their options, registration on the CLI11 app, and what they do.
#pragma once

#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/options.hpp"
#include "tools/verify_options.hpp"

namespace collsim::cli {

struct SimulateOptions {
  TopologyOptions topology;
  AlgorithmOptions algorithm;
  std::string size;
  std::string ranks;
  std::string format = "table";
  std::string network = "fifo";
  VerifyOptions verify;
};
CLI::App* add_simulate(CLI::App& app, SimulateOptions& options);
int run_simulate(const SimulateOptions& options, std::ostream& out, std::ostream& err);

struct ExplainOptions {
  AlgorithmOptions algorithm;
  std::string ranks = "3";
  std::string elements = "6";
};
CLI::App* add_explain(CLI::App& app, ExplainOptions& options);
int run_explain(const ExplainOptions& options, std::ostream& out);

struct TopoOptions {
  TopologyOptions topology;
};
CLI::App* add_topo(CLI::App& app, TopoOptions& options);
int run_topo(const TopoOptions& options, std::ostream& out);

}  // namespace collsim::cli
