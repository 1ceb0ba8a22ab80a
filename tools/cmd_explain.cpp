// collsim explain: an algorithm's schedule step by step in the seed's notation.
#include <fmt/format.h>

#include "algorithms/host_grid.hpp"
#include "algorithms/registry.hpp"
#include "reports/explain.hpp"
#include "run/plan.hpp"
#include "run/simulate.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"

namespace collsim::cli {

CLI::App* add_explain(CLI::App& app, ExplainOptions& o) {
  auto* cmd = app.add_subcommand(
      "explain", "Show a schedule step by step: who sends which chunk to whom, and every GPU's buffer after each step");
  o.algorithm.add_to(*cmd);
  add_value(*cmd, "--ranks", o.ranks, "Number of GPUs, 1 to 26 (named A..Z); default 3");
  add_value(*cmd, "--elements", o.elements, "Elements in each GPU's buffer, 1 to 100000; default 6");
  add_value(*cmd, "--nodes", o.nodes,
            "Put the GPUs on K hosts of N/K each, in order (K must divide --ranks N), for hierarchical and nccl-tree; default: "
            "hosts unknown");
  return cmd;
}

int run_explain(const ExplainOptions& o, std::ostream& out) {
  const std::uint32_t ranks = parse_count("--ranks", o.ranks, 1, 26);
  const std::uint32_t elements = parse_count("--elements", o.elements, 1, 100000);
  const auto& registry = run::builtin_algorithms();
  const algo::AlgorithmInfo& algorithm = registry.find(o.algorithm.collective_kind(), o.algorithm.algorithm);
  const run::AlgorithmOptions options = o.algorithm.options();
  run::check_used_by(options, algorithm);
  // One byte per element: the schedule cuts elements exactly as it cuts bytes.
  algo::Request request = run::make_request(algorithm, options, ranks, elements);
  request.element_size = 1;
  const std::uint32_t nodes = o.nodes.empty() ? 1 : parse_count("--nodes", o.nodes, 1, ranks);
  if (!o.nodes.empty()) {
    if (ranks % nodes != 0)
      throw UsageError(fmt::format("--nodes: --ranks {} is not a multiple of --nodes {}; expected the same number of "
                                   "GPUs on every host", ranks, nodes));
    request.hosts = algo::equal_hosts(ranks, nodes);
  }
  const sched::Schedule schedule = algorithm.build(request);
  // Helpers (NVLS's switch, ps servers) take letters too: say which flag to change, not an internal
  // error, and suggest a rank count that fits with its helpers and splits evenly over --nodes.
  if (schedule.total_ranks() > 26) {
    std::uint32_t fits = 0;
    for (std::uint32_t r = ranks - 1; r >= nodes && fits == 0; --r) {
      if (r % nodes != 0) continue;
      algo::Request fewer = run::make_request(algorithm, options, r, elements);
      fewer.element_size = 1;
      if (!o.nodes.empty()) fewer.hosts = algo::equal_hosts(r, nodes);
      if (algorithm.build(fewer).total_ranks() <= 26) fits = r;
    }
    throw UsageError(fmt::format("--ranks: {} with --ranks {} has {} ranks with its helper rank(s), and explain names "
                                 "at most 26 (A..Z); expected --ranks {} or fewer{}",
                                 algorithm.name, ranks, schedule.total_ranks(), fits,
                                 o.nodes.empty() ? "" : fmt::format(" (a multiple of --nodes {})", nodes)));
  }
  // Helper ranks by what the entry says they are: the switch of NVLS, a parameter server.
  const std::string helper = algorithm.switch_reduction ? "switch" : algorithm.takes.ps_node ? "server" : "helper";
  out << reports::render_explanation(schedule, reports::explain(schedule, helper));
  return kExitOk;
}

}  // namespace collsim::cli
