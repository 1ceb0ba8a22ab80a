// compare and calibrate prepare a log's run once: the topology is loaded once (the file can go
// away after it is opened) and each route is found once for every row and every evaluation.
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "reports/compare_report.hpp"
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

TEST_CASE("compare predicts rows on several threads with the same result as on one", "[run][compare][jobs]") {
  // The 4-node H100 log on its bundled cluster (every row an all-reduce of NCCL's choice), on 1, 2
  // and 3 threads: the rendered comparison must be byte for byte the same.
  run::LogRequest request;
  request.log = log_file("h100_gjaion_4node_default.txt");
  request.topology.name = "dgx-h100-4node-ib400";
  request.collective = sched::Collective::AllReduce;
  request.ranks = 32;
  const run::LogRun log_run = run::open_log_run(request);
  REQUIRE(log_run.log.rows.size() >= 10);
  const std::string one = reports::render_compare_json(run::compare_log(log_run, request, nullptr).view);
  for (const unsigned threads : {2U, 3U}) {
    request.threads = threads;
    CHECK(reports::render_compare_json(run::compare_log(log_run, request, nullptr).view) == one);
  }
  // A row that cannot run fails the comparison with the first such row's error, as on one thread:
  // ring forced on more ranks than the topology has is refused before any row, so use an
  // algorithm that cannot run the collective's rows instead.
  request.algorithm = "pat";
  request.threads = 1;
  std::string single;
  try {
    (void)run::compare_log(log_run, request, nullptr);
  } catch (const std::exception& e) {
    single = e.what();
  }
  REQUIRE_FALSE(single.empty());
  request.threads = 3;
  CHECK_THROWS_WITH(run::compare_log(log_run, request, nullptr), single);
}
}  // namespace log_prediction_test
