// collsim train: how long a data-parallel training step takes and how much of it is communication
// (DDP's bucketed all-reduces, or FSDP's all-gathers and reduce-scatters), for a model on a topology.
#include <algorithm>

#include <fmt/format.h>

#include "run/atomic_file.hpp"
#include "tools/cli.hpp"
#include "tools/commands.hpp"
#include "tools/option_table.hpp"
#include "train/train_report.hpp"
#include "train/train_text.hpp"

namespace collsim::cli {

CLI::App* add_train(CLI::App& app, TrainOptions& o) {
  auto* cmd = app.add_subcommand(
      "train", "Predict a data-parallel training step: its time, and how much of it is communication not hidden "
               "behind compute. Modes: ddp (PyTorch DDP's gradient buckets all-reduced during backward) and fsdp "
               "(FSDP FULL_SHARD / ZeRO-3: all-gather per unit before forward and backward, reduce-scatter after "
               "backward)");
  o.topology.add_to(*cmd);
  add_value(*cmd, "--mode", o.text.mode,
            "ddp (default): PyTorch DistributedDataParallel; fsdp: FullyShardedDataParallel FULL_SHARD, one unit per "
            "layer");
  add_value(*cmd, "--preset", o.text.preset,
            fmt::format("A public model's parameter count and layers: {} (sources: docs/training.md)",
                        train::preset_names()));
  add_value(*cmd, "--tensors", o.text.tensors,
            "A JSON model file: the list [p.numel() for p in model.parameters()] prints, or {\"layers\": [{\"tensors\": "
            "[...], \"forward_time\": \"1ms\", \"backward_time\": \"2ms\"}, ...]}");
  add_value(*cmd, "--parameters", o.text.parameters, "The model as a parameter count (with --layers)");
  add_value(*cmd, "--layers", o.text.layers, "With --parameters: spread over this many equal layers (default 1)");
  add_shared(*cmd, run::Field::Dtype, o.text.dtype);
  add_value(*cmd, "--forward-time", o.text.forward_time,
            "The forward pass's compute time (e.g. 30ms), spread over layers by their parameters; default 0");
  add_value(*cmd, "--backward-time", o.text.backward_time,
            "The backward pass's compute time, spread likewise; default 0 (nothing to hide communication behind)");
  add_value(*cmd, "--bucket-cap", o.text.bucket_cap,
            "ddp: gradient bucket limit (DDP's bucket_cap_mb), default 25M; a comma list runs one case each, "
            "e.g. 1M,5M,25M,100M. Given, it limits the first bucket too, as in PyTorch");
  add_value(*cmd, "--first-bucket", o.text.first_bucket,
            "ddp: the first bucket's limit; default 1M without --bucket-cap, the cap with it (as PyTorch)");
  add_value(*cmd, "--ranks", o.text.ranks,
            "Data-parallel ranks (the topology's first N GPUs): a count or list; A..B means the powers of two from A "
            "to B, e.g. 8,16..64; default: all");
  add_value(*cmd, "--algorithm", o.text.algorithm,
            "Every collective's algorithm; default nccl (NCCL's choice per size); `collsim algorithms` lists them");
  add_shared(*cmd, run::Field::ChunkSize, o.text.options.chunk_size);
  add_shared(*cmd, run::Field::Network, o.text.network);
  o.fidelity.add_to(*cmd, false);
  add_value(*cmd, "--format", o.format, "table (default), json or csv (one row per case)");
  add_value(*cmd, "--trace", o.trace,
            "Write the step's timeline (compute and collectives) to this file in the Chrome trace event format "
            "(ui.perfetto.dev); one case only");
  return cmd;
}

int run_train(const TrainOptions& o, std::ostream& out, std::ostream& err) {
  if (o.format != "table" && o.format != "json" && o.format != "csv")
    throw UsageError(fmt::format("--format: found \"{}\", expected table, json or csv", o.format));
  if (!o.trace.empty()) run::check_output_path("--trace", o.trace);
  train::TrainText text = o.text;
  text.topology = o.topology.text();
  text.model = o.fidelity.text();
  const train::TrainRequest request = train::train_request(text);
  // Before the cases run, which can take a while: a timeline holds one case.
  const std::size_t cases = std::max<std::size_t>(request.ranks.size(), 1) *
                            (request.mode == train::Mode::Ddp ? request.bucket_caps.size() : 1);
  if (!o.trace.empty() && cases != 1)
    throw UsageError(fmt::format("--trace: found {} cases (lists in --ranks or --bucket-cap), expected one", cases));
  const train::TrainResult result = train::run_train(request);
  if (!o.trace.empty()) {
    run::write_file_atomically(o.trace, [&](std::ostream& s) { train::write_trace(s, result, result.cases.front()); });
  }
  o.topology.default_notice(err);
  out << (o.format == "json" ? train::render_json(result) : o.format == "csv" ? train::render_csv(result)
                                                                               : train::render_table(result));
  return kExitOk;
}

}  // namespace collsim::cli
