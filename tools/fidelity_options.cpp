#include "tools/fidelity_options.hpp"

#include <limits>

#include "run/parse.hpp"
#include "tools/options.hpp"

namespace collsim::cli {

void FidelityOptions::add_to(CLI::App& cmd, bool with_model) {
  add_value(cmd, "--protocol", protocol,
            "NCCL protocol: ll, ll128, simple, or auto (the fastest per size by NCCL's cost model). Adds its base and "
            "per-step latency and bandwidth efficiency; default: the topology's (bundled machines: auto), else none");
  add_value(cmd, "--channels", channels,
            "Run C rings/trees in parallel, each on 1/C of the data (allreduce, broadcast, reduce); default: the "
            "topology's, else 1");
  add_value(cmd, "--slice", slice,
            "Move every chunk as a pipeline of slices of this size (K/M/G = powers of 1024, KB/MB/GB of 1000; 0: "
            "whole chunks); default: the topology's, else NCCL's slice of the protocol, else none");
  add_value(cmd, "--params", params,
            "Model parameters from this JSON file (\"format\": \"collsim-params-1\"; README, Model parameters), "
            "over the topology's own");
  add_value(cmd, "--max-ops", max_ops,
            "Most ops a run may have once pipeline chunks and slices are cut (default 262144): a default chunk or "
            "slice is doubled until the run fits, one given by --chunk-size or --slice is refused");
  if (!with_model) return;
  add_value(cmd, "--model", model,
            "Also print a formula's time: analytical (the alpha-beta closed form) or nccl (NCCL's tuning model)");
}

run::ModelOptions FidelityOptions::model_options() const {
  run::ModelOptions m;
  if (!model.empty()) m.formula = run::parse_formula(model);  // flag errors first, as before the layer
  if (!protocol.empty()) m.protocol = run::parse_protocol(protocol);
  if (!channels.empty()) m.channels = run::parse_count(run::Field::Channels, channels, 1, 64);
  if (!slice.empty()) m.slice = run::parse_size(run::Field::Slice, slice);
  m.params = params;
  if (!max_ops.empty())
    m.max_ops = run::parse_count(run::Field::MaxOps, max_ops, 1, std::numeric_limits<std::uint32_t>::max());
  return m;
}

}  // namespace collsim::cli
