// collsim algorithms: every algorithm, the collectives it builds, its steps and traffic as formulas.
#include <algorithm>
#include <fmt/format.h>

#include "run/algorithm_list.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"

namespace collsim::cli {

CLI::App* add_algorithms(CLI::App& app, AlgorithmsOptions& o) {
  auto* cmd = app.add_subcommand("algorithms",
                                 "List every algorithm with the collectives it supports, its step count and the "
                                 "bytes its busiest rank sends, as formulas");
  add_value(*cmd, "--format", o.format, "table (default) or json");
  return cmd;
}

int run_algorithms(const AlgorithmsOptions& o, std::ostream& out) {
  if (o.format != "table" && o.format != "json")
    throw UsageError(fmt::format("--format: found \"{}\", expected table or json", o.format));
  const auto registry = algo::builtin_registry();
  if (o.format == "json") {
    out << run::algorithms_json(registry);
    return kExitOk;
  }
  out << "N ranks, S bytes (nccl-tests size), C pipeline chunks; every algorithm supports every N >= 1 and S >= 0,\n"
         "except hierarchical, which needs the ranks on K hosts of L = N/K each, and nvls-tree and collnet,\n"
         "which need as many ranks on every host when the topology names hosts.\n\n";
  // A column at least its width, and two blanks after any text that fills it.
  const auto cell = [](std::string_view text, std::size_t width) {
    return fmt::format("{:<{}}", text, text.size() + 2 > width ? text.size() + 2 : width);
  };
  // The name column fits the longest name, so every row's columns line up ("recursive-doubling").
  std::size_t name_width = std::string_view("algorithm").size();
  for (const auto& a : registry.all()) name_width = std::max(name_width, a.name.size());
  const auto row = [&out, &cell, name_width](std::string_view a, std::string_view c, std::string_view s,
                                             std::string_view b, std::string_view n) {
    std::string line = cell(a, name_width + 2) + cell(c, 15) + cell(s, 40) + cell(b, 35) + std::string(n);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  row("algorithm", "collective", "steps", "bytes sent (busiest rank)", "options and notes");
  for (const auto& a : registry.all())
    row(a.name, sched::collective_name(a.collective), a.steps, a.bytes_per_rank, a.options);
  out << "\nClosed-form times (alpha-beta, shown as closed_form_us by simulate; algorithms/closed_form.hpp):\n"
         "a = latency and B = bandwidth of a GPU-to-GPU route, P = ceil(S/N) (the largest part), b = floor(S/N)\n"
         "(the all-to-all block), both in whole elements of --dtype when S is a multiple of its size; c = pipeline\n"
         "chunk, C = ceil(S/c); one port = each GPU reaches its peers through one link (a switch), else one link\n"
         "per peer (fully connected). Exact there for unpipelined forms, within a chunk time per hop for\n"
         "pipelined ones (double-tree: within 2D(a + c/B) where its trees share a link); >= marks a lower\n"
         "bound; hierarchical (a', B' between hosts) is an upper bound.\n";
  for (const auto& a : registry.all())
    out << fmt::format("  {} {}: {}\n", a.name, sched::collective_name(a.collective), a.closed_form);
  out << "\nSources:\n";
  for (const auto& a : registry.all())
    out << fmt::format("  {} {}: {}\n", a.name, sched::collective_name(a.collective), a.description);
  return kExitOk;
}

}  // namespace collsim::cli
