// Adding an algorithm is its builder, one registry entry and its tests: a toy algorithm registered
// here alone runs through the library layer's simulate (with the replay check) and sweep, with no
// other file knowing its name.
#include <map>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "algorithms/registry.hpp"
#include "reports/csv.hpp"
#include "reports/sweep_row.hpp"
#include "run/simulate.hpp"
#include "run/sweep.hpp"
#include "sim/schedule/builder.hpp"
#include "topologies/generate.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace toy_algorithm_test {

namespace {

using namespace collsim;

// "star" all-reduce: every rank adds its whole buffer into rank 0's, one after another (each
// reduce writes rank 0's chunk, so they are ordered), then rank 0 sends the sum to every rank.
sched::Schedule build_star(const algo::Request& r) {
  sched::ScheduleBuilder b(algo::schedule_header(r, sched::Collective::AllReduce), algo::split_parts(r, 1));
  for (sched::Rank q = 1; q < r.nranks; ++q) b.send(q, 0, 0, sched::Combine::Reduce, q);
  for (sched::Rank q = 1; q < r.nranks; ++q) b.send(0, q, 0, sched::Combine::Copy, r.nranks);
  return std::move(b).build("star");
}

algo::AlgorithmRegistry with_star() {
  algo::AlgorithmRegistry registry = algo::builtin_registry();
  registry.add({"star", sched::Collective::AllReduce, "reduce to rank 0 one rank at a time, then send the sum out",
                &build_star, "N", "S (rank 0: (N-1)S)"});
  return registry;
}

// Two GPUs under one switch, 25 GB/s and 1 us per link (the generator's defaults): a route is two
// links, so a = 2 us, and S = 1 MiB takes S/B = 1,048,576 B / 25e9 B/s = 41.94304 us.
// Star on N = 2 is one reduce then one copy of the whole buffer: 2(a + S/B) = 87.88608 us.
constexpr std::int64_t kStarTwoGpusPs = 87'886'080;

run::SimulationRequest star_request() {
  run::SimulationRequest r;
  r.topology.gpus = 2;
  r.topology.fabric = topo::Fabric::Switch;
  r.algorithm = "star";
  r.size = Bytes{1} << 20;
  return r;
}

}  // namespace

TEST_CASE("a toy algorithm registered in a test runs through simulate with its replay check", "[run][registry]") {
  const algo::AlgorithmRegistry registry = with_star();
  run::SimulationRequest r = star_request();
  r.verify = validation::ReplayOptions{};
  const run::Simulation s = run::simulate(r, registry);
  CHECK(s.outcome.run.summary.time.count() == kStarTwoGpusPs);
  CHECK(s.outcome.run.summary.algorithm == "star");
  REQUIRE(s.outcome.check);
  CHECK(s.outcome.check->verified);
  // The built-in table does not have it: the name is known to the registry it was added to only.
  CHECK_THROWS_AS(run::simulate(star_request()), algo::AlgorithmError);
}

TEST_CASE("a toy algorithm registered in a test runs through a sweep", "[run][registry]") {
  const algo::AlgorithmRegistry registry = with_star();
  run::SweepRequest request;
  request.topologies.push_back({topo::generate_fabric(topo::Fabric::Switch, 2, parse_bandwidth("25GB/s"),
                                                      parse_latency("1us")),
                                "switch"});
  request.algorithms = {"ring", "star"};
  request.sizes = {Bytes{1} << 20};
  const run::SweepPlan plan = run::plan_sweep(std::move(request), registry);
  REQUIRE(plan.mine.size() == 2);
  const auto header = reports::parse_csv_record(reports::sweep_csv_header());
  std::map<std::string, std::size_t> column;
  for (std::size_t c = 0; c < header.size(); ++c) column[header[c]] = c;
  const run::JobOutcome star = run::run_sweep_row(plan, 1);
  REQUIRE_FALSE(star.skipped);
  std::string line = star.text;
  line.pop_back();  // the record's newline
  const auto row = reports::parse_csv_record(line);
  CHECK(row[column["algorithm"]] == "star");
  CHECK(row[column["time_ps"]] == std::to_string(kStarTwoGpusPs));
  // Ring on the same row for comparison: 2(a + (S/2)/B) = 2(2 + 20.97152) us.
  const run::JobOutcome ring = run::run_sweep_row(plan, 0);
  CHECK(ring.text.find(",45943040,") != std::string::npos);
}
}  // namespace toy_algorithm_test
