// The model flags (--protocol, --channels, --slice, --params, --model, --max-ops, --nccl-algo,
// --gpus-per-thread) of simulate,
// compare and calibrate, and the typed model options they give (run/request.hpp).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "run/request.hpp"
#include "run/text_request.hpp"

namespace collsim::cli {

/// The flags' values are the layer's model text (run::ModelText), bound to CLI11 here.
struct FidelityOptions : run::ModelText {
  /// Registers the flags on `cmd`; --model only when `with_model`.
  void add_to(CLI::App& cmd, bool with_model = true);
  /// The flags as text (run/text_request.hpp).
  [[nodiscard]] const run::ModelText& text() const { return *this; }
  /// The flags as typed model options; throws run::RequestError naming the flag whose value does
  /// not parse (e.g. --protocol fast, --channels 0).
  [[nodiscard]] run::ModelOptions model_options() const;
};

}  // namespace collsim::cli
