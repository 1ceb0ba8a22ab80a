// The library layer's text requests and error reports (run/text_request.hpp, run/sweep_text.hpp,
// run/error_report.hpp), which the CLI and the Python module share: values by hand, messages as
// the command line prints them.
#include <stdexcept>
#include <string>
#include <utility>

#include <catch2/catch.hpp>

#include "algorithms/registry.hpp"
#include "run/error_report.hpp"
#include "run/option_names.hpp"
#include "run/simulate.hpp"
#include "run/sweep_text.hpp"
#include "run/text_request.hpp"
#include "sim/units/units.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace run_text_test {

namespace {

using namespace collsim;

// The report of `error` thrown and caught, fields spelled as flags.
template <typename E>
run::ErrorReport reported(const E& error) {
  try {
    throw error;
  } catch (...) {
    return run::report_error(std::current_exception(), run::flag_spelling);
  }
}

// The RequestError that `call` throws.
template <typename Call>
run::RequestError request_error(Call call) {
  try {
    call();
  } catch (const run::RequestError& e) {
    return e;
  }
  FAIL("no RequestError");
  return {run::Field::Size, "", ""};
}

}  // namespace

TEST_CASE("error reports: kinds, fields and one-line messages as the command line prints them", "[run][errors]") {
  const auto r = reported(run::RequestError(run::Field::ChunkSize, "0", run::ref(run::Field::ChunkSize) + ": found 0"));
  CHECK(r.kind == run::ErrorKind::Request);
  CHECK(r.message == "--chunk-size: found 0");
  CHECK(r.field == run::Field::ChunkSize);
  CHECK(r.value == "0");
  CHECK(reported(run::OverflowError(run::Field::Size, "1T", "too long")).kind == run::ErrorKind::Overflow);
  CHECK(reported(ClockOverflowError("past the clock")).kind == run::ErrorKind::Overflow);
  CHECK(reported(UnitError("bad unit")).kind == run::ErrorKind::Unit);
  const auto a = reported(algo::AlgorithmError("no such algorithm"));
  CHECK(a.kind == run::ErrorKind::Algorithm);
  CHECK(a.message == "--algorithm: no such algorithm");
  CHECK_FALSE(a.field);
  const auto i = reported(std::logic_error("oops"));
  CHECK(i.kind == run::ErrorKind::Internal);
  CHECK(i.message == "internal error (a bug in collsim, please report it): oops");
  // A message quoting what was typed stays one line: controls and broken UTF-8 escaped.
  CHECK(run::one_line("a\nb\tc\x01 \xc3\xa9 \xff") == "a\\nb\\tc\\x01 \xc3\xa9 \\xff");
  CHECK(reported(std::runtime_error("x\ny")).message == "internal error (a bug in collsim, please report it): x\\ny");
}

TEST_CASE("text requests: values parsed as the flags are, a missing size named", "[run][text]") {
  run::SimulateText t;
  t.topology.gpus = "4";
  t.topology.fabric = "switch";
  t.size = "4M";
  t.model.channels = "2";
  t.options.chunk_size = "64K";
  const run::SimulationRequest r = run::simulation_request(t);
  CHECK(r.size == std::optional<Bytes>(4u << 20));
  CHECK(r.topology.gpus == std::optional<std::uint32_t>(4));
  CHECK(r.topology.fabric == topo::Fabric::Switch);
  CHECK(r.model.channels == std::optional<std::uint32_t>(2));
  CHECK(r.options.chunk_size == std::optional<Bytes>(64u << 10));
  CHECK(r.ops == run::Ops::OnDemand);
  CHECK_FALSE(r.verify);

  t.size.clear();
  const auto missing = request_error([&] { (void)run::simulation_request(t); });
  CHECK(missing.field() == run::Field::Size);
  CHECK(missing.rendered(run::flag_spelling) == "--size: missing; give the message size, e.g. --size 1G");
  t.size = "1G";
  t.model.channels = "0";
  CHECK(request_error([&] { (void)run::simulation_request(t); }).rendered(run::flag_spelling) ==
        "--channels: found \"0\", expected a whole number from 1 to 64");
  CHECK(request_error([] { (void)run::replay_options(false, "", "max"); }).rendered(run::flag_spelling) ==
        "--op: only used with --verify; add --verify");
  const auto replay = run::replay_options(true, "int32", "max");
  REQUIRE(replay);
  CHECK(replay->dtype == validation::DType::Int32);
  CHECK(replay->op == validation::ReduceOp::Max);
}

TEST_CASE("sweep text: a generated family, sizes of -b/-e/-f and the defaults", "[run][text][sweep]") {
  run::SweepText t;
  t.generator.gpus = "2..8";
  t.generator.fabric = "ring";
  t.minbytes = "8";
  t.maxbytes = "64";
  t.jobs = "3";
  const run::SweepSetup s = run::sweep_setup(std::move(t));
  REQUIRE(s.request.topologies.size() == 3);
  CHECK(s.request.topologies[0].topology.name() == "ring-2gpu");
  CHECK(s.request.topologies[2].topology.gpus().size() == 8);
  CHECK(s.request.topologies[1].fabric == "ring");
  CHECK(s.request.sizes == std::vector<Bytes>{8, 16, 32, 64});
  CHECK(s.request.algorithms == std::vector<std::string>{"ring"});
  CHECK(s.request.collectives == std::vector<sched::Collective>{sched::Collective::AllReduce});
  CHECK(s.threads == 3);

  run::SweepText d;
  d.sizes = "1M";
  const run::SweepSetup defaults = run::sweep_setup(std::move(d));
  REQUIRE(defaults.request.topologies.size() == 1);
  CHECK(defaults.request.topologies[0].topology.name() == "dgx-a100");
  CHECK(defaults.request.topologies[0].fabric.empty());

  run::SweepText f;
  f.stepfactor = "2";
  const auto e = request_error([&] { (void)run::sweep_setup(std::move(f)); });
  CHECK(e.field() == run::Field::StepFactor);
  CHECK(e.rendered(run::flag_spelling) == "-f/-i: given without -b/--minbytes; expected -b MIN -e MAX with them");
  CHECK(run::flag_spelling(run::Field::MinBytes) == "-b/--minbytes");
  CHECK(run::field_of_keyword("stepbytes") == run::Field::StepBytes);
}
}  // namespace run_text_test
