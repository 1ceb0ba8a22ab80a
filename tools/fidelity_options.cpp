#include "tools/fidelity_options.hpp"

#include <limits>

#include "run/parse.hpp"
#include "tools/option_table.hpp"

namespace collsim::cli {

void FidelityOptions::add_to(CLI::App& cmd, bool with_model) {
  add_shared(cmd, run::Field::Protocol, protocol);
  add_shared(cmd, run::Field::Channels, channels);
  add_shared(cmd, run::Field::Slice, slice);
  add_shared(cmd, run::Field::Params, params);
  add_shared(cmd, run::Field::MaxOps, max_ops);
  if (with_model) add_shared(cmd, run::Field::Model, model);
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
