// collsim sweep and merge: the rows and columns of the issue's acceptance sweep, the
// same bytes for any -j, shards merged into the unsharded file, resume from a partial file, and
// one-line errors. (Killing a real sweep process is in tests/tools/sweep_process_test.cpp.)
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "reports/chart.hpp"
#include "reports/csv.hpp"
#include "tests/cli/cli_harness.hpp"
#include "run/partial_file.hpp"
#include "run/lists.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace sweep_cli_test {

using collsim::testing::check_bad_input;
using collsim::testing::scratch_dir;
using collsim::testing::run_collsim;
using collsim::testing::read_file;

namespace {

// The issue's acceptance sweep: 3 algorithms x N in {2..64} (switch) x 8 B..1 GiB by factors of 2.
const std::vector<std::string> kAcceptance{"sweep",  "--gpus", "2..64", "--fabric", "switch", "--algorithms",
                                           "ring,halving-doubling,recursive-doubling", "-b", "8", "-e", "1G",
                                           "-f",     "2"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// A small sweep for the tests that run it several times.
const std::vector<std::string> kSmall{"sweep", "--gpus", "2,3,8", "--fabric", "ring", "--algorithms", "all",
                                      "--collectives", "allreduce,allgather", "-b", "1K", "-e", "1M", "-f", "32"};

}  // namespace

TEST_CASE("the acceptance sweep: 504 rows, every combination once, the documented columns", "[cli][sweep]") {
  const auto r = run_collsim(with(kAcceptance, {"-j", "2"}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto table = collsim::reports::parse_table(r.out);
  const std::vector<std::string> required{"topology",   "fabric",     "ranks",          "collective",
                                          "algorithm",  "size_bytes", "count",          "type",
                                          "steps",      "time_us",    "algbw_GBps",     "busbw_GBps",
                                          "traffic_factor", "bytes_sent_per_rank_max", "lower_bound_us",
                                          "closed_form_us", "bottleneck_link"};
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < table.columns.size(); ++i) col[table.columns[i]] = i;
  for (const auto& name : required) CHECK(col.count(name) == 1);
  // 3 algorithms x 6 GPU counts x 28 sizes (2^3 .. 2^30).
  REQUIRE(table.rows.size() == 3 * 6 * 28);
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const auto& row = table.rows[i];
    CHECK(row[col["row"]] == std::to_string(i));
    CHECK(row[col["fabric"]] == "switch");
    CHECK(row[col["type"]] == "float32");
    CHECK(std::stoull(row[col["count"]]) == std::stoull(row[col["size_bytes"]]) / 4);
    CHECK(row[col["topology"]] == "switch-" + row[col["ranks"]] + "gpu");
    seen.insert({row[col["algorithm"]], row[col["ranks"]], row[col["size_bytes"]]});
    const double n = std::stod(row[col["ranks"]]);
    // nccl-tests doc/PERFORMANCE.md: busbw = algbw x 2(N-1)/N for all-reduce.
    CHECK(std::stod(row[col["busbw_GBps"]]) == Approx(std::stod(row[col["algbw_GBps"]]) * 2 * (n - 1) / n));
    // A switch is contention-free for a ring: the simulation equals the closed form 2(N-1)(α + τ(S/N)).
    if (row[col["algorithm"]] == "ring") CHECK(row[col["time_us"]] == row[col["closed_form_us"]]);
  }
  CHECK(seen.size() == table.rows.size());
  CHECK(seen.count({"recursive-doubling", "64", "1073741824"}) == 1);
  CHECK(seen.count({"ring", "2", "8"}) == 1);
}

TEST_CASE("sweep gives the same bytes for -j 1 and -j 2, CSV and JSON lines alike", "[cli][sweep][determinism]") {
  for (const std::string format : {"csv", "json"}) {
    const auto one = run_collsim(with(kSmall, {"-j", "1", "--format", format}));
    const auto two = run_collsim(with(kSmall, {"-j", "2", "--format", format}));
    REQUIRE(one.code == 0);
    CHECK(one.out == two.out);
    CHECK(!one.out.empty());
  }
  // JSON lines: one object per line with the CSV's columns.
  const auto j = run_collsim(with(kSmall, {"--format", "json"}));
  std::istringstream lines(j.out);
  std::string first;
  std::getline(lines, first);
  const auto o = nlohmann::json::parse(first);
  CHECK(o["row"] == 0);
  CHECK(o["topology"] == "ring-2gpu");
  CHECK(o.contains("closed_form_us"));
}

TEST_CASE("sweep --algorithms all runs every algorithm of each collective and skips what cannot run",
          "[cli][sweep]") {
  const auto r = run_collsim(kSmall);
  REQUIRE(r.code == 0);
  const auto table = collsim::reports::parse_table(r.out);
  std::set<std::string> allreduce, allgather;
  for (const auto& row : table.rows) (row[5] == "allreduce" ? allreduce : allgather).insert(row[6]);
  // The registry's all-reduce and all-gather algorithms (collsim algorithms); hierarchical needs
  // several hosts and nvls and nvls-tree a switch that reduces, so a generated ring skips the three
  // and says so (9 rows each, the first an nvls one).
  // collnet with no hosts is one host's direct all-reduce: it runs.
  CHECK(allreduce == std::set<std::string>{"ring", "direct", "tree", "double-tree", "nccl-tree", "halving-doubling",
                                           "recursive-doubling", "ps", "collnet"});
  CHECK(allgather == std::set<std::string>{"ring", "direct", "halving-doubling", "recursive-doubling", "pat"});
  CHECK_THAT(r.err, Catch::Contains("skipped 27 row(s) that an algorithm cannot run, first nvls") &&
                       Catch::Contains("NVLS needs one switch that reduces"));
}

TEST_CASE("sweep --shard I/3 then merge gives the unsharded file", "[cli][sweep][merge]") {
  const auto dir = scratch_dir("shard");
  for (const std::string format : {"csv", "json"}) {
    const auto whole = dir / ("whole." + format);
    REQUIRE(run_collsim(with(kSmall, {"--format", format, "-o", whole.string()})).code == 0);
    std::vector<std::string> merge{"merge"};
    for (int i = 2; i >= 0; --i) {  // any order
      const auto part = dir / fmt::format("part{}.{}", i, format);
      REQUIRE(run_collsim(with(kSmall, {"--format", format, "--shard", fmt::format("{}/3", i), "-o", part.string()})).code == 0);
      merge.push_back(part.string());
    }
    const auto merged = dir / ("merged." + format);
    merge.insert(merge.end(), {"-o", merged.string()});
    const auto m = run_collsim(merge);
    INFO(m.err);
    REQUIRE(m.code == 0);
    CHECK(read_file(merged) == read_file(whole));
  }
  // The same shard twice is an error, not a file with doubled rows.
  check_bad_input({"merge", (dir / "part0.csv").string(), (dir / "part0.csv").string()}, "in both");
  // A shard left out is an error, not a file with rows missing (kSmall skips some rows, so the
  // shards' row numbers have gaps of their own): shard 2/3 holds rows 2, 5, ...
  for (const std::string format : {"csv", "json"})
    check_bad_input({"merge", (dir / ("part0." + format)).string(), (dir / ("part1." + format)).string()},
                    "row 2 (rows 2, 5, ... of shard 2/3)");
  check_bad_input({"merge", (dir / "part2.csv").string(), (dir / "part1.csv").string()}, "shard 0/3");
  check_bad_input({"merge", dir.string()}, "is a directory");
}

TEST_CASE("sweep where an algorithm cannot run any row exits 2 with the reason, writing no file", "[cli][sweep][errors]") {
  // NVLS all-reduce (materialised: it has no stream) with 1-byte chunks of 1 MiB is over the op
  // budget: every row is skipped. (Tree and ring are generated on demand, with no budget.)
  const auto dir = scratch_dir("all_skipped");
  const auto out = dir / "out.csv";
  check_bad_input({"sweep", "dgx-h100", "--sizes", "1M", "--chunk-size", "1", "--algorithms", "nvls", "-o", out.string()},
                  "first nvls on 8 ranks");
  CHECK_FALSE(std::filesystem::exists(out));
  CHECK_FALSE(std::filesystem::exists(dir / ".out.csv.partial"));
  check_bad_input({"sweep", "dgx-h100", "--sizes", "1M", "--chunk-size", "1", "--algorithms", "nvls"}, "every row");
  // Some rows skipped: exit 0, the note on stderr (and a shard with none left is not an error).
  const auto some = run_collsim({"sweep", "dgx-h100", "--sizes", "1K,1M", "--chunk-size", "1", "--algorithms", "nvls"});
  INFO(some.err);
  CHECK(some.code == 0);
  CHECK_THAT(some.err, Catch::Contains("skipped 1 row(s)"));
  CHECK(run_collsim({"sweep", "dgx-h100", "--sizes", "1M", "--chunk-size", "1", "--algorithms", "nvls", "--shard", "0/2"}).code == 0);
}

TEST_CASE("sweep refuses a flag that none of its rows uses", "[cli][sweep][errors]") {
  // As a single run does (check_used_by): --root with no broadcast or reduce, --chunk-size with no
  // pipelined algorithm, --ps-shards with no ps would change no row.
  check_bad_input({"sweep", "dgx-h100", "--sizes", "1M", "--collectives", "allreduce", "--root", "3"},
                  "--root: none of the swept collectives has a root");
  check_bad_input({"sweep", "dgx-h100", "--sizes", "1M", "--algorithms", "ring", "--chunk-size", "64K"},
                  "--chunk-size: none of the swept algorithms is pipelined");
  check_bad_input({"sweep", "dgx-h100", "--sizes", "1M", "--algorithms", "ring,direct", "--ps-shards", "2"},
                  "--ps-shards: none of the swept algorithms has servers");
  // A collective name it does not know is named against the flag typed.
  check_bad_input({"sweep", "dgx-h100", "--sizes", "1M", "--collectives", "allreduce,broadcst"},
                  "--collectives: found \"broadcst\"");
  // "all" is every collective, in their order; a collective named twice is refused.
  const auto every = run_collsim({"sweep", "dgx-h100", "--sizes", "1M", "--collectives", "all", "--algorithms", "ring"});
  REQUIRE(every.code == 0);
  CHECK(std::count(every.out.begin(), every.out.end(), '\n') == 1 + 7);  // header + the 7 collectives ring has
  CHECK_THAT(every.out, Catch::Contains(",allreduce,ring,") && Catch::Contains(",sendrecv,ring,") &&
                            Catch::Contains(",alltoall,ring,"));
  check_bad_input({"sweep", "dgx-h100", "--sizes", "1M", "--collectives", "allreduce,all"},
                  "--collectives: allreduce is named twice");
  // One row that uses it is enough (NCCL's choice is checked row by row, against its pick).
  CHECK(run_collsim({"sweep", "dgx-h100", "--sizes", "1M", "--collectives", "allreduce,broadcast", "--root", "3"}).code == 0);
  CHECK(run_collsim({"sweep", "dgx-h100", "--sizes", "1M", "--algorithms", "ring,tree", "--chunk-size", "64K"}).code == 0);
}

TEST_CASE("sweep rows record the routing where paths tie, as simulate does", "[cli][sweep][dmodk]") {
  // 2 DGX H100 on a fat tree of 8-NIC leaves (one host each, so every crossing ties over the 8 spines)
  // under dmodk: the row's routing column and key say so, and its time is simulate's.
  const std::vector<std::string> flags{"--node", "dgx-h100", "--nodes", "2", "--fabric", "fat-tree", "--leaf-nics", "8",
                                       "--routing", "dmodk", "--sizes", "1M"};
  auto args = flags;
  args.insert(args.begin(), "sweep");
  const auto csv = run_collsim(args);
  REQUIRE(csv.code == 0);
  CHECK_THAT(csv.out, Catch::EndsWith(",dmodk,\n"));
  args.insert(args.end(), {"--format", "json"});
  const auto json = run_collsim(args);
  REQUIRE(json.code == 0);
  const auto row = nlohmann::json::parse(json.out.substr(0, json.out.find('\n')));
  CHECK(row["routing"] == "dmodk");
  auto one = std::vector<std::string>(flags.begin(), flags.end() - 2);
  one.insert(one.end(), {"--size", "1M"});
  CHECK(row["time_ps"] == collsim::testing::simulate_json(one)["time_ps"]);
}

TEST_CASE("sweep rows record the root and the pipeline chunk they ran with", "[cli][sweep]") {
  // Tree broadcast from rank 3 in 64 KiB chunks: the last columns before error are 3 and 65536, in
  // CSV and in JSON; ring all-reduce has neither (empty root, chunk 0).
  const auto csv = run_collsim({"sweep", "dgx-h100", "--sizes", "1M", "--collectives", "broadcast,allreduce", "--algorithms",
                                "tree,ring", "--root", "3", "--chunk-size", "64K"});
  REQUIRE(csv.code == 0);
  CHECK_THAT(csv.out, Catch::Contains(",switch_link_imbalance,root,chunk_bytes,routing,error\n"));
  std::istringstream lines(csv.out);
  int broadcast_tree = 0, allreduce_ring = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find(",broadcast,tree,") != std::string::npos) {
      CHECK_THAT(line, Catch::EndsWith(",3,65536,,"));  // root, chunk, no routing (one machine), no error
      ++broadcast_tree;
    }
    if (line.find(",allreduce,ring,") != std::string::npos) {
      CHECK_THAT(line, Catch::EndsWith(",,0,,"));
      ++allreduce_ring;
    }
  }
  CHECK(broadcast_tree == 1);
  CHECK(allreduce_ring == 1);
  const auto json = run_collsim({"sweep", "dgx-h100", "--sizes", "1M", "--collectives", "broadcast", "--algorithms", "tree",
                                 "--root", "3", "--chunk-size", "64K", "--format", "json"});
  REQUIRE(json.code == 0);
  const auto row = nlohmann::json::parse(json.out.substr(0, json.out.find('\n')));
  CHECK(row["root"] == 3);
  CHECK(row["chunk_bytes"] == 65536);
}

TEST_CASE("sweep --resume refuses another sweep's partial file and starts afresh without one", "[cli][sweep][resume]") {
  const auto dir = scratch_dir("resume");
  const auto whole = dir / "whole.csv";
  REQUIRE(run_collsim(with(kSmall, {"-o", whole.string()})).code == 0);
  CHECK_FALSE(std::filesystem::exists(dir / ".whole.csv.partial"));  // removed once the output is complete

  // A partial file from a real interrupted run, cut in the middle of a record, and one of the same
  // command with other options: tests/tools/tool_tests.cpp (kill_and_resume), which stops a sweep
  // process halfway. (A folder in the output's place is refused before any row runs now.)
  const auto out = dir / "out.csv";
  const auto partial = dir / ".out.csv.partial";
  // A partial file of another sweep is refused.
  std::ofstream(partial) << "collsim sweep partial v1 0000000000000000\n";
  check_bad_input(with(kSmall, {"-o", out.string(), "--resume"}), "different sweep");
  std::filesystem::remove(partial);
  // --resume without a partial file starts from the beginning.
  CHECK(run_collsim(with(kSmall, {"-o", out.string(), "--resume"})).code == 0);
  CHECK(read_file(out) == read_file(whole));
}

TEST_CASE("sweep to a device (-o /dev/null) keeps no partial file beside it", "[cli][sweep][resume]") {
  // A link to /dev/null in a scratch folder, with a stale partial file beside the link: a sweep that
  // kept a partial file for a device would refuse to start (it would take it for an interrupted
  // run), and for /dev/null itself would write into /dev.
  const auto dir = scratch_dir("device");
  const auto link = dir / "null.csv";
  std::filesystem::create_symlink("/dev/null", link);
  const auto stale = dir / ".null.csv.partial";
  std::ofstream(stale) << "collsim sweep partial v1 0000000000000000\n";
  const auto r = run_collsim(with(kSmall, {"-o", link.string()}));
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(std::filesystem::is_symlink(link));  // written through, not replaced
  CHECK(read_file(stale) == "collsim sweep partial v1 0000000000000000\n");
  check_bad_input(with(kSmall, {"-o", link.string(), "--resume"}), "not a regular file");
  CHECK(run_collsim(with(kSmall, {"-o", "/dev/null"})).code == 0);
  // A folder that does not exist is named as such (exit 74: the output cannot be written), not
  // through the hidden partial file.
  const auto missing = run_collsim(with(kSmall, {"-o", (dir / "no" / "x.csv").string()}));
  CHECK(missing.code == 74);
  CHECK_THAT(missing.err, Catch::Contains("-o: folder " + (dir / "no").string() + " does not exist (for " +
                                          (dir / "no" / "x.csv").string() + ")"));
}

TEST_CASE("sweep errors are one line and exit 2", "[cli][sweep][errors]") {
  // Every --ranks above the topology's GPUs: no row at all is an error, not a lone header.
  check_bad_input({"sweep", "dgx-a100", "--ranks", "16,32", "--sizes", "1M"}, "expected at most 8");
  check_bad_input({"sweep", "--sizes", "1M", "--shard", "3/3"}, "--shard");
  check_bad_input({"sweep", "--sizes", "1M", "--format", "xml"}, "--format");
  check_bad_input({"sweep", "-b", "1G", "-e", "8"}, "-e/--maxbytes");
  check_bad_input({"sweep", "--sizes", "1M", "--algorithms", "nosuch"}, "--algorithms: ");
  check_bad_input({"sweep", "--sizes", "1M", "--algorithms", "tree", "--collectives", "allgather"}, "tree");
  check_bad_input({"sweep", "--sizes", "1M", "--resume"}, "--resume");
  check_bad_input({"sweep", "--sizes", "1M", "--gpus", "8..4", "--fabric", "ring"}, "--gpus");
  check_bad_input({"sweep"}, "sizes");
  check_bad_input({"sweep", "--sizes", "1M", "--dtype", "float7"}, "--dtype");
  check_bad_input({"merge", "/nonexistent/shard.csv"}, "/nonexistent/shard.csv");
}

TEST_CASE("sweep lists: A..B is the powers of two, sizes follow nccl-tests -b/-e/-f/-i", "[cli][sweep]") {
  using collsim::run::parse_count_list;
  using collsim::run::size_range;
  constexpr auto gpus = collsim::run::Field::Gpus;
  CHECK(parse_count_list(gpus, "2,3,8..64", 1, 1024) == std::vector<std::uint32_t>{2, 3, 8, 16, 32, 64});
  CHECK(parse_count_list(gpus, "3..20", 1, 1024) == std::vector<std::uint32_t>{4, 8, 16});
  // nccl-tests -b 8 -e 128M -f 2: 8, 16, ..., 2^27 (25 sizes); -i adds.
  const auto f = size_range("8", "128M", "2", "", 1000);
  CHECK(f.size() == 25);
  CHECK(f.back() == (std::uint64_t{1} << 27));
  CHECK(size_range("1K", "4K", "", "1K", 1000) == std::vector<collsim::Bytes>{1024, 2048, 3072, 4096});
  CHECK(size_range("1M", "", "", "", 1000) == std::vector<collsim::Bytes>{1u << 20});
  // -b 0 -e 0 is the one size 0 (0 times a factor stays 0: not "more than LIMIT sizes").
  CHECK(size_range("0", "0", "", "", 1000) == std::vector<collsim::Bytes>{0});
  CHECK(size_range("0", "2", "", "1", 1000) == std::vector<collsim::Bytes>{0, 1, 2});
}

TEST_CASE("sweep --node with a --nodes list runs one cluster per host count", "[cli][sweep][cluster]") {
  // 2..8 is 2, 4 and 8 hosts of 8 GPUs: 16, 32 and 64 ranks, each cluster named by its host count.
  // Ring all-reduce's steps are 2(N - 1) (the seed's ring: 2 x (3 - 1) = 4 steps on 3 GPUs).
  const auto run = run_collsim({"sweep", "--node", "dgx-h100", "--nodes", "2..8", "--fabric", "rail", "--algorithms",
                                "ring", "--sizes", "1M", "--format", "json"});
  REQUIRE(run.code == 0);
  std::istringstream lines(run.out);
  std::string line;
  std::vector<std::pair<std::string, std::uint64_t>> rows;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::json::parse(line);
    rows.emplace_back(j.at("topology").get<std::string>(), j.at("ranks").get<std::uint64_t>());
    CHECK(j.at("steps").get<std::uint64_t>() == 2 * (j.at("ranks").get<std::uint64_t>() - 1));
  }
  CHECK(rows == std::vector<std::pair<std::string, std::uint64_t>>{
                    {"dgx-h100-2node-rail", 16}, {"dgx-h100-4node-rail", 32}, {"dgx-h100-8node-rail", 64}});
  check_bad_input({"sweep", "--node", "dgx-h100", "--nodes", "2,x", "--fabric", "rail", "--sizes", "1M"},
                  "--nodes: found \"x\", expected a whole number from 1 to 1048576");
  // A machine that is neither a file nor bundled is refused under the flag that named it.
  check_bad_input({"sweep", "--node", "nope", "--nodes", "2", "--fabric", "rail", "--sizes", "1M"},
                  "--node: topology \"nope\": no such file, and not a bundled topology");
  check_bad_input({"simulate", "--node", "nope", "--nodes", "2", "--fabric", "rail", "--size", "1M"},
                  "--node: topology \"nope\"");
}

TEST_CASE("RFC 4180 fields: quoted when needed, read back exactly", "[cli][csv]") {
  using namespace collsim::reports;
  const std::vector<std::string> fields{"plain", "a,b", "say \"hi\"", "two\nlines", ""};
  std::string record;
  for (const auto& f : fields) record += (record.empty() ? "" : ",") + csv_field(f);
  const auto records = split_csv_records(record + "\r\nnext\n");
  REQUIRE(records.size() == 2);
  CHECK(parse_csv_record(records[0]) == fields);
  CHECK_THROWS_AS(split_csv_records("\"open"), CsvError);
  CHECK_THROWS_AS(parse_csv_record("a\"b"), CsvError);
}

TEST_CASE("sweep --params runs every row with the parameter file, as simulate --params does", "[cli][sweep]") {
  // A parameter file as calibrate writes it: a Simple-only run with a 20 us base latency and PCIe at half rate.
  const auto dir = scratch_dir("sweep_params");
  const auto params = (dir / "p.json").string();
  std::ofstream(params) << R"({"format": "collsim-params-1", "protocol": "simple", "link_efficiency": {"pcie": 0.5},
                              "base_latency": {"ring": {"simple": "20us"}}})";
  const auto r = run_collsim({"sweep", "l40s-pcie", "--ranks", "2", "--sizes", "1M", "--format", "json", "--params", params});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto row = nlohmann::json::parse(r.out);
  const auto s = collsim::testing::simulate_json({"l40s-pcie", "--ranks", "2", "--size", "1M", "--params", params});
  CHECK(row["time_ps"] == s["time_ps"]);
  const auto plain = collsim::testing::simulate_json({"l40s-pcie", "--ranks", "2", "--size", "1M"});
  CHECK(row["time_ps"] != plain["time_ps"]);
  check_bad_input({"sweep", "l40s-pcie", "--sizes", "1M", "--params", (dir / "none.json").string()}, "none.json");
}

TEST_CASE("contended dgx-a100 points stay near the per-change model's times", "[cli][sweep][flow]") {
  // The issue 7 sweep's contended points: 24 channels between every pair of GPUs of one NVSwitch.
  // Reference: the times the flow model gave when it solved the rates at every start and end (one
  // max-min flow per transfer, main at 8d35d43; bench/PROFILE.md 3.7 compares all 1,519 points of
  // the sweep). Since issue 14 the rates are solved once per instant (flow_model.hpp, PROFILE
  // 3.10), which removes the re-solves inside a picosecond; these points are the most sensitive
  // of the sweep to that and to the order of ends due at one picosecond (0.1 to 0.5 %: direct 1 KiB
  // starts 1,344 flows at once; double-tree, ring and halving-doubling pipeline slices through
  // shared NVSwitch ports), so they must stay within 0.5 % of the per-change times; the exact
  // times are checked op for op against the plain model by tests/unit/flow_reference_test.cpp
  // ("24-channel all-reduce on NVSwitch boxes").
  using collsim::testing::simulate_json;
  const std::vector<std::pair<std::vector<std::string>, std::int64_t>> points{
      {{"dgx-a100", "--ranks", "8", "--algorithm", "direct", "--size", "1K"}, 9'022'486},
      {{"dgx-a100", "--ranks", "8", "--algorithm", "double-tree", "--size", "16M"}, 431'051'490},
      {{"dgx-a100", "--ranks", "7", "--algorithm", "ring", "--size", "32M"}, 296'390'383},
      {{"dgx-a100", "--ranks", "6", "--algorithm", "halving-doubling", "--size", "512K"}, 32'506'647},
  };
  for (const auto& [args, time_ps] : points) {
    INFO(fmt::format("{}", fmt::join(args, " ")));
    const auto t = simulate_json(args)["time_ps"].get<std::int64_t>();
    CHECK(std::abs(static_cast<double>(t - time_ps)) <= 0.005 * static_cast<double>(time_ps));
  }
}

TEST_CASE("sweep -o - writes to standard output, as merge -o - and --save-schedule - do", "[cli][sweep]") {
  const auto plain = run_collsim(kSmall);
  REQUIRE(plain.code == 0);
  const auto dash = run_collsim(with(kSmall, {"-o", "-"}));
  INFO(dash.err);
  CHECK(dash.code == 0);
  CHECK(dash.out == plain.out);
  CHECK_FALSE(std::filesystem::exists("-"));
  CHECK_FALSE(std::filesystem::exists(".-.partial"));
  check_bad_input(with(kSmall, {"-o", "-", "--resume"}), "--resume: needs -o FILE");
}

TEST_CASE("a sweep whose partial file another sweep holds is refused with exit 74, not told to delete it",
          "[cli][sweep][resume]") {
  const auto dir = scratch_dir("locked");
  const auto out = dir / "out.csv";
  const auto partial = dir / ".out.csv.partial";
  {
    // Held as a running sweep holds it (run/partial_file.hpp): by this process, which the child
    // collsim names by its pid (tests/tools/tool_tests.cpp checks it with a running sweep).
    const collsim::run::PartialFile held(partial, out);
    const std::string holder = " (pid " + std::to_string(::getpid()) + ")";
    for (const bool resume : {false, true}) {
      const auto r = run_collsim(with(kSmall, resume ? std::vector<std::string>{"-o", out.string(), "--resume"}
                                                     : std::vector<std::string>{"-o", out.string()}));
      CHECK(r.code == 74);
      CHECK(r.out.empty());
      CHECK(r.err == "collsim: error: -o: another sweep" + holder + " is writing " + out.string() + " (it holds the lock of " +
                         partial.string() + "); expected it to finish first, or another -o FILE\n");
    }
    CHECK(read_file(partial).empty());  // left as its holder has it
    CHECK_FALSE(std::filesystem::exists(out));
  }
  // Once it is released (the holder ended without writing a line), the file is an interrupted run.
  check_bad_input(with(kSmall, {"-o", out.string()}), "holds an interrupted run");
}

TEST_CASE("a sweep row whose time passes the clock's end is reported in its row and on stderr, and the others run",
          "[cli][sweep][errors]") {
  // Ring all-reduce on 2 ranks at 1 b/s takes 2 · (S/2 · 8 s + 1 us): 1 KiB and 1 MiB fit the clock
  // (2^63 ps, 9.22e6 s); 2 MiB passes its end while it runs, and 1 TiB's single transfers alone
  // pass it. The rows after them still run.
  const std::vector<std::string> sweep{"sweep", "--gpus", "2", "--fabric", "ring", "--link-bandwidth", "1b/s",
                                       "--sizes", "1K,2M,1T,1M"};
  const auto r = run_collsim(sweep);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto table = collsim::reports::parse_table(r.out);
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < table.columns.size(); ++i) col[table.columns[i]] = i;
  REQUIRE(col.count("error") == 1);
  CHECK(table.columns.back() == "error");
  REQUIRE(table.rows.size() == 4);
  const std::vector<std::uint64_t> sizes{1024, 2 << 20, 1ull << 40, 1 << 20};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& row = table.rows[i];
    CHECK(row[col["row"]] == std::to_string(i));
    CHECK(row[col["topology"]] == "ring-2gpu");
    CHECK(row[col["size_bytes"]] == std::to_string(sizes[i]));
    CHECK(row[col["count"]] == std::to_string(sizes[i] / 4));
    if (sizes[i] <= (1 << 20)) {
      // 2 · (S/2 · 8 · 1e12 ps + 1e6 ps).
      CHECK(row[col["time_ps"]] == std::to_string(sizes[i] * 8'000'000'000'000ull + 2'000'000));
      CHECK(row[col["error"]].empty());
    } else {
      for (std::size_t c = col["steps"]; c <= col["events"]; ++c) CHECK(row[c].empty());
      CHECK_THAT(row[col["error"]], Catch::Contains("clock"));
      CHECK_THAT(r.err, Catch::Contains(fmt::format("collsim: warning: sweep row {} (ring-2gpu, 2 ranks, allreduce ring, "
                                                    "{} bytes): not simulated: ",
                                                    i, sizes[i])));
    }
  }
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 2);  // one line per such row
  // JSON lines: null results, the reason under "error".
  const auto j = run_collsim(with(sweep, {"--format", "json"}));
  REQUIRE(j.code == 0);
  std::istringstream lines(j.out);
  std::vector<nlohmann::json> objects;
  for (std::string line; std::getline(lines, line);) objects.push_back(nlohmann::json::parse(line));
  REQUIRE(objects.size() == 4);
  CHECK(objects[0]["error"].is_null());
  CHECK(objects[1]["time_ps"].is_null());
  CHECK(objects[1]["size_bytes"] == 2 << 20);
  CHECK_THAT(objects[2]["error"].get<std::string>(), Catch::Contains("clock"));
  CHECK(objects[1].size() == objects[0].size());

  // Past ten such rows, stderr names the first ten and counts the rest.
  const auto many = run_collsim({"sweep", "--gpus", "2", "--fabric", "ring", "--link-bandwidth", "1b/s", "-b", "2M",
                                 "-e", "24M", "-i", "2M"});
  REQUIRE(many.code == 0);
  CHECK(std::count(many.err.begin(), many.err.end(), '\n') == 11);
  CHECK_THAT(many.err, Catch::Contains("sweep row 9 (") && !Catch::Contains("sweep row 10 (") &&
                           Catch::Contains("collsim: warning: sweep: 2 more row(s) not simulated"));
}

TEST_CASE("sweep --gpus-per-thread G puts the host's floor under every row", "[cli][sweep][host]") {
  // 8 GPUs from one thread: 8 x 4.2 us = 33.6 us at 8 B (topologies/host_costs.hpp), where the
  // collective alone takes 23.4 us; at 1 GiB the collective's milliseconds stand.
  const auto g8 = run_collsim({"sweep", "dgx-a100", "--sizes", "8,1G", "--gpus-per-thread", "8"});
  const auto g1 = run_collsim({"sweep", "dgx-a100", "--sizes", "8,1G"});
  REQUIRE(g8.code == 0);
  REQUIRE(g1.code == 0);
  // time_us (column 12) of the row of `size` bytes.
  const auto time_us = [](const std::string& csv, const std::string& size) {
    std::istringstream in(csv);
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::istringstream cells(line);
      for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
      if (f.size() > 11 && f[7] == size) return std::stod(f[11]);
    }
    return -1.0;
  };
  CHECK(time_us(g8.out, "8") == 33.6);
  // One process per GPU: the collective's own 6.6 us (LL base) + 14 x (0.6 + 2 x 0.3) us = 23.4 us.
  CHECK(time_us(g1.out, "8") == Approx(23.4).margin(0.01));
  // The 1 GiB row: the same time either way; the host columns say 8 x 4.2 us, not the bound.
  CHECK(time_us(g8.out, "1073741824") == time_us(g1.out, "1073741824"));
  CHECK(time_us(g8.out, "1073741824") > 33.6);
  CHECK_THAT(g8.out, Catch::Contains(",simple,24,33.6,false,,,0,,\n"));  // no root, no chunk (ring), no routing
  CHECK_THAT(g8.out, Catch::Contains(",ll,1,33.6,true,,,0,,\n"));
  CHECK_THAT(g1.out, Catch::Contains(",ll,1,4.2,false,,,0,,\n"));
  CHECK(run_collsim({"sweep", "dgx-a100", "--sizes", "8", "--gpus-per-thread", "0"}).code == 2);
}
}  // namespace sweep_cli_test
