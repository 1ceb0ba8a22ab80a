// compare and calibrate prepare a log's run once: the topology is loaded once (the file can go
// away after it is opened) and each route is found once for every row and every evaluation.
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "run/calibration.hpp"
#include "run/log_prediction.hpp"
#include "tests/cli/cli_harness.hpp"
#include "topologies/export.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace log_prediction_test {

namespace {

using namespace collsim;

std::string log_file(const std::string& name) {
  return std::string(COLLSIM_SOURCE_DIR) + "/tests/data/nccl-tests/" + name;
}

}  // namespace

TEST_CASE("a log's run loads its topology once and finds each route once for every row and evaluation",
          "[run][compare][calibrate]") {
  // The bundled l40s-pcie written to a file that is removed once the log's run is open: every later
  // prediction must use the topology loaded then.
  const auto dir = collsim::testing::scratch_dir("log_run_once");
  const auto file = (dir / "l40s.json").string();
  {
    std::ofstream out(file);
    out << topo::normalized_json(topo::load_topology("l40s-pcie"));
  }
  run::LogRequest request;
  request.log = log_file("l40s_2gpu_ring.txt");
  request.topology.name = file;
  const run::LogRun log_run = run::open_log_run(request);
  std::filesystem::remove(file);
  REQUIRE(log_run.ranks == 2);

  const run::LogComparison first = run::compare_log(log_run, request, nullptr);
  CHECK(first.view.rows.size() == log_run.log.rows.size());
  // Two ranks: the routes 0 -> 1 and 1 -> 0, whatever the number of rows.
  const std::uint64_t found = log_run.paths->found();
  CHECK(found == 2);
  const run::LogComparison second = run::compare_log(log_run, request, nullptr);
  CHECK(second.view.rows.size() == first.view.rows.size());
  CHECK(second.view.rows.front().predicted == first.view.rows.front().predicted);
  // A fit of 6 evaluations over every row finds no route the comparison did not.
  const run::Calibration fit = run::calibrate(log_run, request, log_run.log.rows, 6);
  CHECK(fit.evaluations >= 6);  // the simplex may finish the step it is in
  CHECK(log_run.paths->found() == found);
}
}  // namespace log_prediction_test
