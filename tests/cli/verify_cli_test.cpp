// collsim simulate --verify / --dtype / --op, and the verdict in every report format.
#include <catch2/catch.hpp>

#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "algorithms/registry.hpp"
#include "reports/simulate_report.hpp"
#include "sim/network/network_model.hpp"
#include "tests/cli/cli_harness.hpp"
#include "topologies/generate.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace verify_cli_test {

using namespace collsim;

using namespace collsim::testing;

namespace {

std::vector<std::string> simulate(std::vector<std::string> extra) {
  std::vector<std::string> args{"simulate", "--gpus", "4", "--fabric", "ring", "--size"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string last_line(const std::string& text) {
  const auto end = text.find_last_not_of('\n');
  const auto start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

// The fields of one RFC 4180 CSV line.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

}  // namespace

TEST_CASE("simulate --verify ends the table with the verdict", "[cli][cpu-replay]") {
  const auto r = run_collsim(simulate({"1M", "--verify"}));
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  // 4 ranks x 1 MiB / 4 bytes = 1048576 float32 values.
  CHECK(last_line(r.out) == "verified: float32 sum, every element (1048576 values compared)");
  const auto plain = run_collsim(simulate({"1M"}));
  CHECK(plain.out.find("verified") == std::string::npos);
}

TEST_CASE("simulate --verify in JSON and CSV: the documents stay valid", "[cli][cpu-replay]") {
  const auto r = run_collsim(simulate({"1M", "--verify", "--dtype", "int32", "--op", "max", "--format", "json"}));
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["verified"] == true);
  const auto& v = j["verification"];
  CHECK(v["dtype"] == "int32");
  CHECK(v["op"] == "max");
  CHECK(v["coverage"] == "full");
  CHECK(v["values_checked"] == 1048576);
  CHECK(v["symbolic"] == false);
  CHECK(v["note"].is_null());
  CHECK(v["problem"].is_null());
  CHECK(v["mismatch"].is_null());
  CHECK_FALSE(nlohmann::json::parse(run_collsim(simulate({"1M", "--format", "json"})).out).contains("verified"));

  const auto c = run_collsim(simulate({"1M", "--verify", "--format", "csv"}));
  REQUIRE(c.code == 0);
  std::istringstream lines(c.out);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  CHECK_THAT(header, Catch::EndsWith(",verified,verify_dtype,verify_op,verify_coverage,verify_problem"));
  CHECK_THAT(row, Catch::EndsWith(",true,float32,sum,full,"));
  CHECK(csv_fields(header).size() == csv_fields(row).size());
}

TEST_CASE("simulate --verify of a collective that only moves data names no reduction op", "[cli][cpu-replay]") {
  // Broadcast and all-gather combine nothing: the text verdict has no op (cpu_replay.cpp), and
  // neither may JSON (null) or CSV (an empty verify_op), whatever --op says.
  for (const std::string collective : {"broadcast", "allgather"}) {
    INFO(collective);
    const auto j = run_collsim(simulate({"1M", "--collective", collective, "--verify", "--format", "json"}));
    REQUIRE(j.code == 0);
    const auto v = nlohmann::json::parse(j.out)["verification"];
    CHECK(v["op"].is_null());
    CHECK(v["dtype"] == "float32");
    const auto c = run_collsim(simulate({"1M", "--collective", collective, "--verify", "--format", "csv"}));
    REQUIRE(c.code == 0);
    CHECK_THAT(c.out, Catch::EndsWith(",true,float32,,full,\n"));
    const auto t = run_collsim(simulate({"1M", "--collective", collective, "--verify"}));
    REQUIRE(t.code == 0);
    CHECK(last_line(t.out).find("sum") == std::string::npos);
    // An --op there would be ignored while looking checked: refused (one line, exit 2).
    const auto op = run_collsim(simulate({"1M", "--collective", collective, "--verify", "--op", "max"}));
    CHECK(op.code == 2);
    CHECK(op.out.empty());
    CHECK_THAT(op.err, Catch::Contains("--op: " + collective + " combines nothing"));
  }
}

TEST_CASE("simulate --verify above 16 MiB samples chunk ends and adds the symbolic replay", "[cli][cpu-replay]") {
  const auto r = run_collsim(simulate({"64M", "--verify", "--dtype", "bfloat16"}));
  REQUIRE(r.code == 0);
  // Ring all-reduce on 4 ranks: 4 chunks, 2 ends each, on 4 ranks = 32 values.
  CHECK(last_line(r.out) == "verified: bfloat16 sum, first and last element of every chunk (32 values compared) and "
                            "the contributions of every chunk (symbolic replay)");
}

TEST_CASE("simulate --verify replays sizes the dtype cannot cut as uint8 and says so", "[cli][cpu-replay]") {
  const auto r = run_collsim(simulate({"10", "--verify", "--collective", "allgather"}));
  REQUIRE(r.code == 0);
  // An all-gather moves values: no op, no "sum modulo 256".
  CHECK(last_line(r.out) == "verified: uint8, every element (40 values compared); 10 bytes is not a multiple of "
                            "float32's 4 bytes, so the replay used uint8");
}

TEST_CASE("simulate --verify: S = 12 B on 5 ranks is cut in whole float32 elements and replayed as float32",
          "[cli][cpu-replay]") {
  // 3 float32 elements over 5 parts: 1, 1, 1, 0, 0 elements (NCCL counts in elements), so no
  // chunk splits a float and the replay needs no uint8 fallback: 3 elements on each of 5 ranks.
  const auto r = run_collsim({"simulate", "--gpus", "5", "--fabric", "ring", "--size", "12", "--verify"});
  REQUIRE(r.code == 0);
  CHECK(last_line(r.out) == "verified: float32 sum, every element (15 values compared)");
  // --dtype without --verify sets the cut too. A ring all-reduce rank sends every part but one in
  // each half, two neighbouring parts left out, so the busiest sends 2·S minus the lightest pair:
  // float32 parts 4, 4, 4, 0, 0 bytes leave out 0 + 0 (24 B); uint8 parts 3, 3, 2, 2, 2 leave 2 + 2 (20 B).
  const auto sent = [](const std::string& dtype) {
    const auto j = run_collsim({"simulate", "--gpus", "5", "--fabric", "ring", "--size", "12", "--dtype", dtype,
                                "--format", "json"});
    REQUIRE(j.code == 0);
    return nlohmann::json::parse(j.out)["bytes_sent_per_rank_max"].get<std::uint64_t>();
  };
  CHECK(sent("float32") == 24);
  CHECK(sent("uint8") == 20);
}

TEST_CASE("simulate --dtype and --op: bad values, and --op without --verify", "[cli][cpu-replay]") {
  check_bad_input(simulate({"1M", "--verify", "--dtype", "int8"}),
                  "--dtype: found \"int8\", expected one of: float32, float64, float16, bfloat16, int32, uint8");
  check_bad_input(simulate({"1M", "--verify", "--op", "avg"}), "--op: found \"avg\", expected one of: sum, min, max, prod");
  check_bad_input(simulate({"1M", "--dtype", "int8"}), "--dtype: found \"int8\"");
  check_bad_input(simulate({"1M", "--op", "min"}), "--op: only used with --verify");
  check_bad_input(simulate({"1M", "--verify", "--dtype", ""}), "--dtype");
}

TEST_CASE("a failed replay: every format names the rank, chunk and element and stays valid", "[cli][cpu-replay]") {
  const auto registry = algo::builtin_registry();
  auto schedule = registry.find(sched::Collective::AllReduce, "ring").build({sched::Collective::AllReduce, 4, 64});
  schedule.ops[0].combine = sched::Combine::Copy;  // loses one contribution to chunk ops[0].dst_chunk
  const auto check = validation::replay_on_cpu(schedule);
  REQUIRE_FALSE(check.verified);
  const auto topology = topo::generate_fabric(topo::Fabric::Ring, 4, parse_bandwidth("25GB/s"), parse_latency("1us"));
  const auto network = net::make_network_model("fifo", topology);
  const auto result = sim::run(schedule, topology, topology.gpus(), *network);
  const auto summary = sim::summarize(schedule, topology, topology.gpus(), result, "fifo");
  const reports::SimulationView view{summary, result, topology, topology.gpus(), &check};

  const auto j = nlohmann::json::parse(reports::render_json(view));
  CHECK(j["verified"] == false);
  const auto& m = j["verification"]["mismatch"];
  CHECK(m["rank"] == 0);
  CHECK(m["chunk"] == schedule.ops[0].dst_chunk);
  CHECK(m["buffer"] == "data");
  CHECK(m["element"] == schedule.chunks[schedule.ops[0].dst_chunk].offset / 4);
  CHECK(j["verification"]["problem"] == check.problem);

  const std::string csv = reports::render_csv(view);
  std::istringstream lines(csv);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  const auto fields = csv_fields(row);
  REQUIRE(fields.size() == csv_fields(header).size());
  CHECK(fields.back() == check.problem);  // quoted, since it holds commas
  CHECK(fields[fields.size() - 5] == "false");

  CHECK(last_line(reports::render_table(view)) == "verification failed: " + check.problem);
  CHECK_THAT(check.problem, Catch::StartsWith(fmt::format("rank 0 chunk {} (data buffer, element {} = byte {})",
                                                          schedule.ops[0].dst_chunk, m["element"].get<int>(),
                                                          4 * m["element"].get<int>())));
}

TEST_CASE("simulate --verify on dgx-a100's 24 channels and slices replays whole float32 elements", "[cli][cpu-replay]") {
  // 4 MiB = 2^20 float32 elements: NCCL splits element counts over channels, so no channel share,
  // part or slice (a power of two of at least 64 KiB) cuts a float, and no uint8 fallback is needed.
  const auto r = run_collsim({"simulate", "dgx-a100", "--size", "4M", "--verify"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("verified: float32 sum"));
}

TEST_CASE("simulate --verify names no reduction for a collective that only moves data", "[cli][cpu-replay]") {
  // Broadcast, all-gather and all-to-all copy values; "float32 sum" read as though they added them
  // (newcomer finding). All-reduce keeps its op.
  for (const char* collective : {"broadcast", "allgather", "alltoall"}) {
    INFO(collective);
    const auto r = run_collsim({"simulate", "--gpus", "4", "--fabric", "switch", "--size", "64", "--collective",
                                collective, "--verify"});
    REQUIRE(r.code == 0);
    CHECK(last_line(r.out).starts_with("verified: float32, every element"));
  }
  const auto r = run_collsim({"simulate", "--gpus", "4", "--fabric", "switch", "--size", "64", "--verify", "--op", "max"});
  REQUIRE(r.code == 0);
  CHECK(last_line(r.out).starts_with("verified: float32 max, every element"));
}
}  // namespace verify_cli_test
