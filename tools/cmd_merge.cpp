// collsim merge: join the shard files of a sweep (--shard I/K) into the file one unsharded run
// writes (run/sweep_merge.hpp checks and joins them), to standard output or -o FILE.
#include "run/atomic_file.hpp"
#include "run/sweep_merge.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"

namespace collsim::cli {

CLI::App* add_merge(CLI::App& app, MergeOptions& o) {
  auto* cmd = app.add_subcommand("merge", "Join the shard files of a sweep (--shard I/K) into the file one unsharded "
                                          "run writes");
  cmd->add_option("shards", o.shards, "The shard files (CSV or JSON lines of collsim sweep --shard), in any order")
      ->required();
  add_value(*cmd, "-o,--output", o.output, "Write here (atomically) instead of standard output (- for standard output)");
  return cmd;
}

int run_merge(const MergeOptions& o, std::ostream& out) {
  if (!o.output.empty()) run::check_output_path("-o", o.output);  // before reading the shards
  const std::string merged = run::merge_shards(o.shards);
  if (o.output.empty() || o.output == "-") {
    out << merged;
  } else {
    run::write_file_atomically(o.output, [&](std::ostream& s) { s << merged; });
  }
  return kExitOk;
}

}  // namespace collsim::cli
