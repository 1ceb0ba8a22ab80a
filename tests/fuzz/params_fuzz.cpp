// Fuzzes the model-parameter reader (topologies/model_params.cpp, `--params FILE`): a parameter
// file is either read or refused with TopologyError. What is read is written out (as a calibration
// writes it) and reads back equal, and every value in effect can be asked for.
#include <cstddef>
#include <cstdint>
#include <string>

#include "topologies/model_params.hpp"
#include "topologies/topology.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using collsim::Time;
using collsim::fuzz::must_accept;
using collsim::fuzz::require;
using namespace collsim::topo;

// The values a simulation reads, over every protocol, link class and family.
void check_in_effect(const ModelParams& p) {
  for (std::size_t c = 0; c < kLinkClasses; ++c) {
    const double e = p.link_efficiency_or_default(static_cast<LinkClass>(c));
    require(e > 0 && e <= 1, "a link efficiency in effect lies in (0, 1]");
  }
  for (std::size_t i = 0; i < kProtocols; ++i) {
    const auto proto = static_cast<Protocol>(i);
    const double e = p.protocol_efficiency_or_default(proto);
    require(e > 0 && e <= 1, "a protocol efficiency in effect lies in (0, 1]");
    (void)p.slice_or_default(proto);
    for (std::size_t f = 0; f < kFamilies; ++f) {
      const auto family = static_cast<AlgoFamily>(f);
      require(p.base_latency_or_default(family, proto) >= Time{0}, "a base latency in effect is not negative");
      for (std::size_t c = 0; c < kLinkClasses; ++c)
        require(p.step_latency_or_default(family, static_cast<LinkClass>(c), proto) >= Time{0},
                "a step latency in effect is not negative");
    }
  }
}

void check_round_trip(const ModelParams& p) {
  const std::string text = write_model_params_json(p);
  const ModelParams again =
      must_accept<TopologyError>([&] { return parse_model_params_file(text, "written"); }, "written params read");
  require(again == p, "written params read back equal");
  require(write_model_params_json(again) == text, "written params are a fixed point");
}

}  // namespace

/// libFuzzer's entry point: the input as a parameter file.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const ModelParams p = parse_model_params_file(collsim::fuzz::as_text(data, size), "fuzz");
    check_in_effect(p);
    check_round_trip(p);
  } catch (const TopologyError&) {
  }
  return 0;
}
