#include "tools/fidelity_options.hpp"

#include "run/text_request.hpp"
#include "tools/option_table.hpp"

namespace collsim::cli {

void FidelityOptions::add_to(CLI::App& cmd, bool with_model) {
  add_shared(cmd, run::Field::Protocol, protocol);
  add_shared(cmd, run::Field::Channels, channels);
  add_shared(cmd, run::Field::Slice, slice);
  add_shared(cmd, run::Field::Params, params);
  add_shared(cmd, run::Field::MaxOps, max_ops);
  add_shared(cmd, run::Field::NcclAlgo, nccl_algo);
  add_shared(cmd, run::Field::GpusPerThread, gpus_per_thread);
  if (with_model) add_shared(cmd, run::Field::Model, model);
}

run::ModelOptions FidelityOptions::model_options() const { return run::model_options(text()); }

}  // namespace collsim::cli
