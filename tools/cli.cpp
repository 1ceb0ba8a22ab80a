#include "tools/cli.hpp"

#include <algorithm>
#include <new>

#include <fmt/format.h>

#include "algorithms/registry.hpp"
#include "reports/csv.hpp"
#include "sim/schedule/json_io.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"
#include "topologies/topology.hpp"

namespace collsim::cli {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  return n;
}

// Messages quote what the user typed; escape control characters and broken UTF-8 so that an
// error stays one readable line.
std::string one_line(std::string_view msg) {
  std::string out;
  for (std::size_t i = 0; i < msg.size();) {
    const auto b = static_cast<unsigned char>(msg[i]);
    const std::size_t n = utf8_length(msg, i);
    if (n == 0 || b < 0x20 || b == 0x7f) {
      out += b == '\n' ? std::string("\\n") : b == '\t' ? std::string("\\t") : fmt::format("\\x{:02x}", b);
      ++i;
    } else {
      out.append(msg.substr(i, n));
      i += n;
    }
  }
  return out;
}

int fail(std::ostream& err, int code, std::string_view msg) {
  err << "collsim: error: " << one_line(msg) << "\n";
  return code;
}

// "a, b or c": the registered subcommands in registration order, so error messages never go stale.
std::string subcommand_list(const CLI::App& app) {
  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  std::string text;
  for (std::size_t i = 0; i < subs.size(); ++i)
    text += (i == 0 ? "" : i + 1 == subs.size() ? " or " : ", ") + subs[i]->get_name();
  return text;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"collsim: predicts how long GPU collectives take on a cluster, and explains why", "collsim"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "collsim " + std::string(kVersion));
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  SimulateOptions simulate;
  ExplainOptions explain;
  TopoOptions topo;
  AlgorithmsOptions algorithms;
  CompareOptions compare;
  CalibrateOptions calibrate;
  BenchOptions bench;
  SweepOptions sweep;
  MergeOptions merge;
  PlotOptions plot;
  ValidateOptions validate;
  CLI::App* simulate_cmd = add_simulate(app, simulate);
  CLI::App* explain_cmd = add_explain(app, explain);
  CLI::App* topo_cmd = add_topo(app, topo);
  CLI::App* algorithms_cmd = add_algorithms(app, algorithms);
  CLI::App* sweep_cmd = add_sweep(app, sweep);
  CLI::App* merge_cmd = add_merge(app, merge);
  CLI::App* plot_cmd = add_plot(app, plot);
  CLI::App* compare_cmd = add_compare(app, compare);
  CLI::App* calibrate_cmd = add_calibrate(app, calibrate);
  CLI::App* bench_cmd = add_bench(app, bench);
  CLI::App* validate_cmd = add_validate(app, validate);
  const std::string subcommands = subcommand_list(app);

  // CLI11 would only say "a subcommand is required"; name what was typed instead.
  if (args.empty()) return fail(err, kExitBadInput, fmt::format("expected a subcommand: {} (see collsim --help)", subcommands));
  if (!args.empty() && !args.front().starts_with('-')) {
    const auto subs = app.get_subcommands([](CLI::App*) { return true; });
    if (std::none_of(subs.begin(), subs.end(), [&](CLI::App* s) { return s->get_name() == args.front(); }))
      return fail(err, kExitBadInput,
                  fmt::format("unknown subcommand \"{}\", expected {} (see collsim --help)", args.front(), subcommands));
  }
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 reads a vector back to front
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    return fail(err, kExitBadInput, msg + " (see collsim --help)");
  }

  try {
    if (simulate_cmd->parsed()) return run_simulate(simulate, out, err);
    if (explain_cmd->parsed()) return run_explain(explain, out);
    if (topo_cmd->parsed()) return run_topo(topo, out);
    if (algorithms_cmd->parsed()) return run_algorithms(algorithms, out);
    if (compare_cmd->parsed()) return run_compare(compare, out, err);
    if (calibrate_cmd->parsed()) return run_calibrate(calibrate, out, err);
    if (bench_cmd->parsed()) return run_bench(bench, out, err);
    if (sweep_cmd->parsed()) return run_sweep(sweep, out, err);
    if (merge_cmd->parsed()) return run_merge(merge, out);
    if (plot_cmd->parsed()) return run_plot(plot);
    if (validate_cmd->parsed()) return run_validate(validate, out, err);
    return fail(err, kExitBadInput, fmt::format("expected a subcommand: {}", subcommands));
  } catch (const UsageError& e) {
    return fail(err, kExitBadInput, e.what());
  } catch (const run::RequestError& e) {
    return fail(err, kExitBadInput, e.rendered(flag_spelling));
  } catch (const NoGpuError& e) {
    return fail(err, kExitNoGpu, e.what());
  } catch (const OutputError& e) {
    return fail(err, kExitOutput, e.rendered(flag_spelling));
  } catch (const sched::ScheduleFileError& e) {
    return fail(err, kExitBadInput, e.what());
  } catch (const reports::CsvError& e) {
    return fail(err, kExitBadInput, e.what());
  } catch (const UnitError& e) {
    return fail(err, kExitBadInput, e.what());
  } catch (const topo::TopologyError& e) {
    return fail(err, kExitBadInput, e.what());
  } catch (const algo::AlgorithmError& e) {
    return fail(err, kExitBadInput, fmt::format("--algorithm: {}", e.what()));
  } catch (const std::length_error& e) {
    return fail(err, kExitBadInput, e.what());
  } catch (const std::bad_alloc&) {
    return fail(err, kExitBadInput, "out of memory: the schedule is too large for this machine; use fewer ranks");
  } catch (const std::exception& e) {
    return fail(err, kExitInternal, fmt::format("internal error (a bug in collsim, please report it): {}", e.what()));
  }
}

}  // namespace collsim::cli
