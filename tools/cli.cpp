#include "tools/cli.hpp"

#include <algorithm>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "run/error_report.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"

namespace collsim::cli {
namespace {

// The exit code of an error of `kind` (cli.hpp).
int exit_code(run::ErrorKind kind) {
  switch (kind) {
    case run::ErrorKind::Output: return kExitOutput;
    case run::ErrorKind::Internal: return kExitInternal;
    default: return kExitBadInput;
  }
}

int fail(std::ostream& err, int code, std::string_view msg) {
  err << "collsim: error: " << run::one_line(msg) << "\n";
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

// "see collsim sweep --help" where a subcommand was typed (its own flags), else the top level's.
std::string help_hint(const CLI::App& app) {
  const auto typed = app.get_subcommands();
  return typed.empty() ? std::string("see collsim --help") : fmt::format("see collsim {} --help", typed.front()->get_name());
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
  TrainOptions train;
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
  CLI::App* train_cmd = add_train(app, train);
  const std::string subcommands = subcommand_list(app);
  // A flag typed twice is refused like an option typed twice ("given 2 times, expected once"
  // below): CLI11 takes a repeated flag silently, and a doubled --verify usually means a
  // mistyped command line.
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* opt : sub->get_options())
      if (opt->get_expected_max() == 0 && opt != sub->get_help_ptr() && opt != sub->get_help_all_ptr())
        opt->multi_option_policy(CLI::MultiOptionPolicy::Throw);

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
  } catch (const CLI::ExtrasError& e) {
    // CLI11 names the extras back to front (it joins a reversed list); name them as typed.
    const std::vector<std::string> extras = app.remaining(true);
    if (extras.empty()) return fail(err, kExitBadInput, fmt::format("{} ({})", e.what(), help_hint(app)));
    return fail(err, kExitBadInput,
                fmt::format("The following argument{} not expected: {} ({})", extras.size() == 1 ? " was" : "s were",
                            fmt::join(extras, " "), help_hint(app)));
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    // CLI11 says "--gpus: At Most 1 required but received 2" for a flag typed twice (each flag
    // takes one value, and a second one would silently win): say what happened instead.
    static const std::regex kRepeated(R"(^(\S+): At Most 1 required but received (\d+)$)");
    if (std::smatch m; std::regex_match(msg, m, kRepeated))
      msg = fmt::format("{}: given {} times, expected once", m[1].str(), m[2].str());
    return fail(err, kExitBadInput, fmt::format("{} ({})", msg, help_hint(app)));
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
    if (train_cmd->parsed()) return run_train(train, out, err);
    return fail(err, kExitBadInput, fmt::format("expected a subcommand: {}", subcommands));
  } catch (const UsageError& e) {
    return fail(err, kExitBadInput, e.what());
  } catch (const NoGpuError& e) {
    return fail(err, kExitNoGpu, e.what());
  } catch (const std::exception&) {
    // The library layer's errors read the same in every front end (run/error_report.hpp).
    const run::ErrorReport report = run::report_error(std::current_exception(), flag_spelling);
    return fail(err, exit_code(report.kind), report.message);
  }
}

}  // namespace collsim::cli
