// The collsim command line: outputs, determinism, and one-line errors with exit 2.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "algorithms/registry.hpp"
#include "tests/cli/cli_harness.hpp"
#include "run/progress_note.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace cli_test {

using namespace collsim::testing;

TEST_CASE("simulate --format json has the documented keys and only the document on stdout", "[cli]") {
  const auto r = run_collsim({"simulate", "--gpus", "8", "--fabric", "ring", "--link-bandwidth", "25GB/s",
                          "--link-latency", "1us", "--size", "1M", "--format", "json"});
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"collective", "algorithm", "ranks", "size_bytes", "steps", "time_us", "algbw_GBps",
                          "busbw_GBps", "bytes_sent_per_rank_max", "traffic_factor", "lower_bound_us",
                          "bottleneck_link", "per_rank", "links", "events", "topology"})
    CHECK(j.contains(key));
  CHECK(j["collective"] == "allreduce");
  CHECK(j["algorithm"] == "ring");
  CHECK(j["ranks"] == 8);
  CHECK(j["size_bytes"] == 1048576);
  CHECK(j["steps"] == 14);
  // 2(N-1)(α + ⌈S/N⌉/B) = 14 · (1 us + 131072 B / 25 GB/s) = 14 · 6.24288 us = 87.40032 us.
  CHECK(j["time_ps"] == 87'400'320);
  CHECK(r.out.find("\"time_us\": 87.40032,") != std::string::npos);  // printed exactly, not rounded
  CHECK(j["traffic_factor"] == 1.75);
  CHECK(j["closed_form_us"] == j["time_us"]);  // the ring is contention-free: sim = 2(N-1)(α + ⌈S/N⌉/B)
  // algbw = S / t; busbw = algbw · 2(N-1)/N (nccl-tests PERFORMANCE.md).
  CHECK(j["algbw_GBps"].get<double>() == Approx(1048576.0 / 87.40032e-6 / 1e9).epsilon(1e-12));
  CHECK(j["busbw_GBps"].get<double>() == Approx(1048576.0 / 87.40032e-6 / 1e9 * 14 / 8).epsilon(1e-12));
  CHECK(j["per_rank"].size() == 8);
  CHECK(j["per_rank"][3]["bytes_sent"] == 14 * 131072);
  CHECK(j["links"].size() == 8);  // one direction of each ring link carries data
  CHECK(j["topology"] == "ring-8gpu");
}

TEST_CASE("simulate defaults to the bundled dgx-a100 and says so on stderr", "[cli]") {
  const auto r = run_collsim({"simulate", "--size", "1G"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("dgx-a100"));
  CHECK_THAT(r.out, Catch::Contains("ring allreduce of 1 GiB") && Catch::Contains("8 ranks of dgx-a100"));
}

TEST_CASE("the same command twice prints byte-identical output", "[cli][determinism]") {
  for (const auto& format : {"table", "json", "csv"}) {
    const std::vector<std::string> args{"simulate", "dgx-a100-2node", "--size", "100000007", "--format", format};
    const auto a = run_collsim(args);
    const auto b = run_collsim(args);
    REQUIRE(a.code == 0);
    CHECK(a.out == b.out);
  }
}

TEST_CASE("simulate --format csv is one header row and one data row", "[cli]") {
  const auto r = run_collsim({"simulate", "ring8-nvlink", "--size", "8M", "--format", "csv"});
  REQUIRE(r.code == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 2);
  CHECK_THAT(r.out, Catch::StartsWith("topology,network,collective,algorithm,ranks,size_bytes,steps,time_us,"));
}

TEST_CASE("simulate --ranks N uses the first N GPUs", "[cli]") {
  const auto r = run_collsim({"simulate", "dgx-h100", "--ranks", "2", "--size", "1G", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["ranks"] == 2);
  CHECK(j["per_rank"][1]["gpu"] == "gpu1");
  CHECK(j["steps"] == 2);
}

TEST_CASE("collective names accept hyphens and underscores", "[cli]") {
  for (const char* name : {"allreduce", "all-reduce", "all_reduce", "AllReduce"})
    CHECK(run_collsim({"simulate", "--collective", name, "--size", "1K", "--format", "csv"}).code == 0);
  CHECK(run_collsim({"simulate", "--collective", "all-gather", "--size", "1K", "--format", "csv"}).code == 0);
  check_bad_input({"simulate", "--collective", "broadcast", "--algorithm", "direct", "--size", "1K"},
                  "not supported yet");
}

TEST_CASE("explain prints the seed's example", "[cli][seed]") {
  const auto r = run_collsim({"explain", "--algorithm", "ring", "--ranks", "3", "--elements", "6"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("GPU0: [A0, A1+C1, A2]") && Catch::Contains("GPU1: [B0, B1, A2+B2]") &&
                        Catch::Contains("GPU2: [B0+C0, C1, C2]") && Catch::Contains("GPU0: [A0+B0+C0, A1+C1, A2]") &&
                        Catch::Contains("4 steps"));
}

TEST_CASE("explain counts one GPU, element, chunk in the singular", "[cli]") {
  // One GPU holding one element: one chunk, nothing to send (0 steps).
  const auto one = run_collsim({"explain", "--ranks", "1", "--elements", "1"});
  REQUIRE(one.code == 0);
  CHECK_THAT(one.out, Catch::StartsWith("ring allreduce on 1 GPU, 1 element in 1 chunk, 0 steps\n"));
  // The seed's example: 3 GPUs, 6 elements in 3 chunks, 2(N-1) = 4 steps.
  const auto seed = run_collsim({"explain", "--ranks", "3", "--elements", "6"});
  CHECK_THAT(seed.out, Catch::StartsWith("ring allreduce on 3 GPUs, 6 elements in 3 chunks, 4 steps\n"));
}

TEST_CASE("topo summarises a topology and lists the bundled ones", "[cli]") {
  const auto list = run_collsim({"topo"});
  REQUIRE(list.code == 0);
  for (const char* name : {"dgx-a100", "dgx-h100", "pcie-4gpu", "ring8-nvlink", "dgx-a100-2node"})
    CHECK_THAT(list.out, Catch::Contains(name));
  const auto one = run_collsim({"topo", "dgx-a100"});
  REQUIRE(one.code == 0);
  CHECK_THAT(one.out, Catch::Contains("8 gpu, 1 switch") && Catch::Contains("injection bandwidth per GPU: 300 GB/s"));
}

TEST_CASE("bad flags give one error line and exit 2", "[cli][errors]") {
  // Arguments no option takes are named in the order typed (CLI11 alone lists them reversed).
  check_bad_input({"explain", "ring", "3", "6"},
                  "The following arguments were not expected: ring 3 6 (see collsim explain --help)");
  check_bad_input({"explain", "--ranks", "3", "extra"}, "The following argument was not expected: extra (see");
  check_bad_input({"simulate", "--size", "-5"}, "--size");
  check_bad_input({"simulate", "--size", "lots"}, "\"lots\"");
  check_bad_input({"simulate", "--size", "1.5"}, "whole number of bytes");
  check_bad_input({"simulate"}, "--size");
  check_bad_input({"simulate", "--size", "1M", "--ranks", "9"}, "only 8 GPUs");
  check_bad_input({"simulate", "--size", "1M", "--ranks", "0"}, "--ranks");
  check_bad_input({"simulate", "--size", "1M", "--ranks", "two"}, "--ranks");
  check_bad_input({"simulate", "--size", "1M", "--algorithm", "magic"}, "expected one of: ring");
  check_bad_input({"simulate", "--size", "1M", "--collective", "allsum"},
                  "allreduce, reducescatter, allgather, broadcast, reduce, alltoall");
  check_bad_input({"simulate", "--size", "1M", "--format", "xml"}, "table, json or csv");
  check_bad_input({"simulate", "--size", "1M", "--network", "magic"}, "fifo");
  check_bad_input({"simulate", "dgx-a100", "--gpus", "4", "--fabric", "ring", "--size", "1M"}, "one or the other");
  check_bad_input({"simulate", "--gpus", "4", "--size", "1M"}, "--fabric");
  check_bad_input({"simulate", "--gpus", "4", "--fabric", "torus", "--size", "1M"}, "torus");
  check_bad_input({"simulate", "--gpus", "4", "--fabric", "ring", "--link-bandwidth", "0GB/s", "--size", "1M"},
                  "--link-bandwidth");
  check_bad_input({"simulate", "--gpus", "4", "--fabric", "ring", "--link-latency", "5", "--size", "1M"},
                  "--link-latency");
  check_bad_input({"simulate", "--size", "1M", "--bogus"}, "--bogus");
  // A flag typed twice: which value was meant is unknown, so it is refused in words, not CLI11's.
  check_bad_input({"simulate", "--gpus", "8", "--gpus", "4", "--fabric", "switch", "--size", "1M"},
                  "--gpus: given 2 times, expected once");
  // The same for a flag without a value (CLI11 would take `--verify --verify` silently).
  check_bad_input({"simulate", "--size", "1M", "--verify", "--verify"}, "--verify: given 2 times, expected once");
  check_bad_input({"topo", "dgx-a100", "--dot", "--dot"}, "--dot: given 2 times, expected once");
  check_bad_input({"sweep", "dgx-a100", "--network", "flow", "--network", "fifo", "--network", "flow"},
                  "--network: given 3 times, expected once");
  check_bad_input({"frobnicate"}, "frobnicate");
  check_bad_input({"explain", "--ranks", "27"}, "--ranks");
  check_bad_input({"explain", "--elements", "0"}, "--elements");
}

TEST_CASE("bad topologies give one error line naming the file and exit 2", "[cli][errors]") {
  check_bad_input({"simulate", "/no/such/file.json", "--size", "1M"}, "no such file");
  check_bad_input({"topo", "no-such-topology"}, "dgx-a100");  // lists the bundled names
  const auto bad_json = temp_file("bad.json", "{\n  \"nodes\": [\n    {\"id\": \"gpu0\" \"type\": \"gpu\"}\n  ]\n}\n");
  check_bad_input({"simulate", bad_json, "--size", "1M"}, bad_json + ":3:");
  const auto bad_link = temp_file("bad_link.json", R"({"nodes":[{"id":"gpu0","type":"gpu"},{"id":"gpu1","type":"gpu"}],
    "links":[{"from":"gpu0","to":"gpu9","type":"nvlink","bandwidth":"1GB/s","latency":"1us"}]})");
  check_bad_input({"topo", bad_link}, "/links/0/to");
  check_bad_input({"simulate", std::filesystem::temp_directory_path().string(), "--size", "1M"},
                  std::filesystem::temp_directory_path().string() + " is a directory; expected a topology JSON file");
}

TEST_CASE("help exits 0", "[cli]") {
  const auto r = run_collsim({"simulate", "--help"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("--size"));
}

// Found by a newcomer's review.
TEST_CASE("overflowing the simulated clock is bad input, not an internal error", "[cli][errors]") {
  check_bad_input({"simulate", "--size", "18446744073709551615"}, "clock");
  check_bad_input({"simulate", "--gpus", "4", "--fabric", "ring", "--size", "1M", "--link-bandwidth", "1b/s"}, "clock");
  // The size and the links' rate overflow together: the message asks for either, not only a smaller --size.
  check_bad_input({"simulate", "--gpus", "8", "--fabric", "switch", "--size", "1G", "--link-bandwidth", "1B/s"},
                  "expected a smaller size or faster links");
  check_bad_input({"simulate", "--gpus", "4", "--fabric", "switch", "--size", "0", "--link-latency", "1000000s"}, "clock");
}

TEST_CASE("errors stay on one line whatever was typed", "[cli][errors]") {
  check_bad_input({"simulate", "--size", "1\n2"}, "\"1\\n2\"");
  check_bad_input({"simulate", "--size", "1M", "--algorithm", "ri\tng\xff"}, "ri\\tng\\xff");
}

TEST_CASE("an empty flag value is an error, not the default", "[cli][errors]") {
  check_bad_input({"simulate", "--size", "1M", "--ranks", ""}, "--ranks");
  check_bad_input({"simulate", "", "--size", "1M"}, "topology");
  check_bad_input({"simulate", "--gpus", "4", "--fabric", "ring", "--link-bandwidth", "", "--size", "1M"},
                  "--link-bandwidth");
  check_bad_input({"simulate", "--size", ""}, "--size");
}

TEST_CASE("a mistyped flag is named even when a required one is missing", "[cli][errors]") {
  check_bad_input({"simulate", "--siz", "1M"}, "--siz");
}

TEST_CASE("collsim --version prints the version", "[cli]") {
  const auto r = run_collsim({"--version"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("collsim "));
}

TEST_CASE("CSV holds every scalar of the JSON", "[cli]") {
  const auto csv = run_collsim({"simulate", "dgx-a100", "--size", "1M", "--format", "csv"});
  const auto json = nlohmann::json::parse(run_collsim({"simulate", "dgx-a100", "--size", "1M", "--format", "json"}).out);
  REQUIRE(csv.code == 0);
  const std::string header = csv.out.substr(0, csv.out.find('\n'));
  for (const auto& [key, value] : json.items())
    if (!value.is_structured()) CHECK_THAT(header, Catch::Contains(key));
}

TEST_CASE("simulate: closed_form_us follows the fabric's port model", "[cli][closed-form]") {
  const auto form = [](const std::string& fabric, const std::string& algorithm) {
    const auto r = run_collsim({"simulate", "--gpus", "6", "--fabric", fabric, "--link-bandwidth", "25GB/s",
                                "--link-latency", "1us", "--size", "6000", "--algorithm", algorithm, "--network",
                                "fifo", "--format", "json"});
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out)["closed_form_us"];
  };
  // Fully connected, one link per pair: direct all-reduce 2(α + (S/N)/B) = 2(1 us + 1000 B / 25 GB/s).
  CHECK(form("fully-connected", "direct") == 2.08);
  // A ring of GPUs: far peers are several hops away, so only ring's neighbour forms apply:
  // 2(N-1)(α + (S/N)/B) = 10 · 1.04 us.
  CHECK(form("ring", "ring") == 10.4);
  CHECK(form("ring", "direct").is_null());
  CHECK(form("ring", "ps").is_null());
}

TEST_CASE("the closed form uses the slowest route between consecutive ranks, never below the lower bound",
          "[cli][closed-form]") {
  // Four GPUs on one switch, 100 GB/s and 1 us per link, but g2's link at 10 GB/s. S = 4 MB, P = S/N =
  // 1 MB. By hand: lower bound 2(N-1)/N · S / B_inj = 1.5 · 4e6 B / 10 GB/s (g2 injects 10) = 600 us.
  // Ring all-reduce crosses g2's link on 1 -> 2 and 2 -> 3: α = 2 us (two links), B = 10 GB/s, so
  // 2(N-1)(α + P/B) = 6 · (2 + 100) = 612 us. Rank 0 -> 1 alone (100 GB/s) gave 6 · (2 + 10) = 72 us,
  // 8x below the bound.
  std::string links;
  for (const char* g : {"g0", "g1", "g2", "g3"})
    links += std::string(links.empty() ? "" : ",") + R"({"from": ")" + g + R"(", "to": "sw", "type": "nvlink", "bandwidth": ")" +
             (std::string(g) == "g2" ? "10GB/s" : "100GB/s") + R"(", "latency": "1us"})";
  const auto file = temp_file("slow_link.json", R"({"name": "slow-link", "nodes": [{"id": "g0", "type": "gpu"},
      {"id": "g1", "type": "gpu"}, {"id": "g2", "type": "gpu"}, {"id": "g3", "type": "gpu"},
      {"id": "sw", "type": "switch"}], "links": [)" + links + "]}");
  const auto ring = simulate_json({file, "--size", "4MB"});
  CHECK(ring["lower_bound_us"] == 600.0);
  CHECK(ring["closed_form_us"] == 612.0);
  CHECK(ring["closed_form_us"].get<double>() >= ring["lower_bound_us"].get<double>());
  CHECK(ring["time_us"].get<double>() >= ring["lower_bound_us"].get<double>());
  // Direct on one port: each rank's N-1 sends of P leave one after the other, twice (reduce-scatter,
  // all-gather), over its pairs' slowest route (every pair with g2): 2(α + (N-1)·P/B) = 2 · (2 + 300) us.
  const auto direct = simulate_json({file, "--size", "4MB", "--algorithm", "direct"});
  CHECK(direct["closed_form_us"] == 604.0);
  CHECK(direct["closed_form_us"].get<double>() >= direct["lower_bound_us"].get<double>());
}

TEST_CASE("collsim algorithms lists every registered algorithm with its formulas", "[cli][algorithms]") {
  const auto r = run_collsim({"algorithms", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto list = nlohmann::json::parse(r.out);
  const auto registry = collsim::algo::builtin_registry();
  REQUIRE(list.size() == registry.all().size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    CHECK(list[i]["algorithm"] == registry.all()[i].name);
    CHECK_FALSE(list[i]["steps"].get<std::string>().empty());
    CHECK_FALSE(list[i]["bytes_sent_per_rank_max"].get<std::string>().empty());
    // Every entry but NVLS has a closed form (closed_form.hpp), and says so.
    CHECK(list[i]["closed_form"].get<std::string>().empty() == (registry.all()[i].closed_form_time == nullptr));
  }
  const auto table = run_collsim({"algorithms"});
  CHECK_THAT(table.out, Catch::Contains("2(N-1)/N*S") && Catch::Contains("double-tree"));
  // Ring all-reduce's form, Patarasuk & Yuan 2009, in the closed-form list.
  CHECK_THAT(table.out, Catch::Contains("  ring allreduce: 2(N-1)(a + P/B)\n"));
  // Every row's collective starts in one column, the longest name's ("recursive-doubling") too.
  std::istringstream rows(table.out);
  std::set<std::size_t> collective_columns;
  for (std::string line; std::getline(rows, line);)
    for (const auto& entry : registry.all())
      if (line.starts_with(std::string(entry.name) + " ")) {
        const std::string kind(collsim::sched::collective_name(entry.collective));
        if (const auto at = line.find(" " + kind + " "); at != std::string::npos) collective_columns.insert(at + 1);
      }
  CHECK(collective_columns.size() == 1);
  check_bad_input({"simulate", "--size", "1M", "--collective", "alltoall", "--algorithm", "tree"}, "tree supports");
}

TEST_CASE("two GPUs joined by one link have the fully-connected closed forms", "[cli][closed-form]") {
  // Halving-doubling on N = 2: 2·log2 N·α + 2(N-1)·P/B (Thakur, Rabenseifner & Gropp 2005) with
  // α = 1 us, P = 512 KiB, B = 25 GB/s: 2 us + 41.94304 us. A single port that leads straight to the
  // only peer is not a shared switch port.
  const auto j = collsim::testing::simulate_json({"--gpus", "2", "--fabric", "fully-connected", "--algorithm",
                                                  "halving-doubling", "--size", "1M"});
  CHECK(j["time_ps"] == 43'943'040);
  REQUIRE(j["closed_form_us"].is_number());
  CHECK(j["closed_form_us"].get<double>() == Approx(43.94304).epsilon(1e-12));
  for (const char* algorithm : {"tree", "double-tree", "recursive-doubling", "direct"}) {
    INFO(algorithm);
    const auto k = collsim::testing::simulate_json(
        {"--gpus", "2", "--fabric", "fully-connected", "--algorithm", algorithm, "--size", "1M"});
    CHECK(k["closed_form_us"].is_number());
  }
}

TEST_CASE("a single run refuses a flag its algorithm would not use", "[cli]") {
  // nccl-tests ignores such flags; a simulator that silently drops --chunk-size would print a time
  // the user did not ask for, so simulate and explain say which flag and what would use it.
  check_bad_input({"simulate", "--size", "1M", "--root", "3"}, "--root: allreduce has no root");
  check_bad_input({"simulate", "--size", "1M", "--chunk-size", "4K"}, "--chunk-size: ring allreduce is not pipelined");
  check_bad_input({"simulate", "--size", "1M", "--ps-shards", "2"}, "--ps-shards: only the ps algorithm");
  check_bad_input({"explain", "--ranks", "3", "--root", "1"}, "--root: allreduce has no root");
  // The flags still work where they apply.
  CHECK(run_collsim({"simulate", "--size", "1M", "--collective", "broadcast", "--root", "3"}).code == 0);
  CHECK(run_collsim({"simulate", "--size", "1M", "--algorithm", "tree", "--chunk-size", "64K"}).code == 0);
}

TEST_CASE("the root of a broadcast or reduce is in every output", "[cli]") {
  // --root 3 is what ran: JSON "root", the CSV column before routing (empty on one machine), a
  // table row; null, empty and no row for a collective without a root.
  for (const char* collective : {"broadcast", "reduce"}) {
    INFO(collective);
    const auto j = simulate_json({"--size", "1M", "--collective", collective, "--root", "3"});
    CHECK(j["root"] == 3);
    const auto csv = run_collsim({"simulate", "--size", "1M", "--collective", collective, "--root", "3", "--format", "csv"});
    REQUIRE(csv.code == 0);
    CHECK_THAT(csv.out, Catch::EndsWith(",3,\n") && Catch::Contains(",rank_images,root,routing\n"));
    const auto table = run_collsim({"simulate", "--size", "1M", "--collective", collective, "--root", "3"});
    REQUIRE(table.code == 0);
    CHECK_THAT(table.out, Catch::Contains("\n  root                  rank 3\n"));
  }
  CHECK(simulate_json({"--size", "1M"})["root"].is_null());
  const auto csv = run_collsim({"simulate", "--size", "1M", "--format", "csv"});
  CHECK_THAT(csv.out, Catch::EndsWith(",1,,\n"));  // rank_images 1, no root, no routing (one machine)
  CHECK_THAT(run_collsim({"simulate", "--size", "1M"}).out, !Catch::Contains("  root "));
}

TEST_CASE("a pipeline chunk that is not whole elements prints the chunk that runs", "[cli]") {
  // Tree cuts 1 MiB of floats into chunks of whole 4-byte elements (algo::pipeline_chunk_bytes):
  // 1001 B runs as 1000 B (1049 chunks), 3 B as 4 B; the output names the rounding.
  const auto j = simulate_json({"--size", "1M", "--algorithm", "tree", "--chunk-size", "1001"});
  CHECK(j["chunk_bytes"] == 1000);
  CHECK(j["chunk_source"] == "--chunk-size, rounded to whole elements of 4 B");
  const auto up = simulate_json({"--size", "1M", "--algorithm", "tree", "--chunk-size", "3"});
  CHECK(up["chunk_bytes"] == 4);
  // A whole number of elements, or bytes (--dtype uint8), runs as typed and says so plainly.
  const auto whole = simulate_json({"--size", "1M", "--algorithm", "tree", "--chunk-size", "1000"});
  CHECK(whole["chunk_bytes"] == 1000);
  CHECK(whole["chunk_source"] == "--chunk-size");
  const auto bytes = simulate_json({"--size", "1M", "--algorithm", "tree", "--chunk-size", "1001", "--dtype", "uint8"});
  CHECK(bytes["chunk_bytes"] == 1001);
}

TEST_CASE("a negative count is told its lower bound, not the type's upper one", "[cli]") {
  // --root is a rank: before the ranks are known only 0 bounds it; once they are, 0 to N-1.
  check_bad_input({"simulate", "--size", "1M", "--collective", "broadcast", "--root", "-1"},
                  "--root: found \"-1\", expected a whole number, 0 or more");
  check_bad_input({"simulate", "--size", "1M", "--collective", "broadcast", "--root", "8"},
                  "--root: found \"8\", expected a whole number from 0 to 7");
  check_bad_input({"simulate", "--size", "1M", "--ranks", "-2"}, "--ranks: found \"-2\", expected a whole number, 1 or more");
  check_bad_input({"simulate", "--size", "1M", "--ranks", "0"}, "--ranks: found \"0\", expected a whole number, 1 or more");
  // Only a value past the type's end is told its end.
  check_bad_input({"simulate", "--size", "1M", "--ranks", "99999999999"},
                  "--ranks: found \"99999999999\", expected a whole number from 1 to 4294967295");
  // The ends of a range are told the field's bounds, as a single value is.
  for (const char* range : {"2..5000000000", "a..8", "2.."})
    check_bad_input({"sweep", "--gpus", range, "--fabric", "switch", "--sizes", "8"}, "expected a whole number from 1 to 1048576");
}

TEST_CASE("explain ends with the check of the collective it explained", "[cli][seed]") {
  const auto last_line = [](const std::vector<std::string>& args) {
    const auto r = run_collsim(args);
    REQUIRE(r.code == 0);
    const auto end = r.out.find_last_not_of('\n');
    return r.out.substr(r.out.rfind('\n', end) + 1, end - r.out.rfind('\n', end));
  };
  CHECK(last_line({"explain", "--ranks", "3", "--elements", "6"}) ==
        "check: every GPU holds every rank's share of every chunk exactly once (allreduce is complete)");
  CHECK(last_line({"explain", "--ranks", "3", "--elements", "6", "--collective", "reduce", "--root", "2"}) ==
        "check: GPU2 holds every rank's share of every chunk exactly once (reduce is complete)");
  CHECK(last_line({"explain", "--ranks", "3", "--elements", "6", "--collective", "broadcast", "--root", "1"}) ==
        "check: every GPU holds GPU1's buffer (broadcast is complete)");
  CHECK(last_line({"explain", "--ranks", "3", "--elements", "6", "--collective", "allgather"}) ==
        "check: every GPU holds every rank's part (allgather is complete)");
}

TEST_CASE("a size that overflows the clock names where it came from", "[cli]") {
  // 2^62 B at 25 GB/s is 1.8e23 ps, past the int64 clock (2^63 ps, about 106 days).
  check_bad_input({"simulate", "--gpus", "2", "--fabric", "switch", "--size", "4611686018427387904"},
                  "--size 4611686018427387904: a transfer of");
  const auto saved = run_collsim({"simulate", "--gpus", "2", "--fabric", "switch", "--size", "8", "--save-schedule", "-"});
  REQUIRE(saved.code == 0);
  auto j = nlohmann::json::parse(saved.out);
  j["size_bytes"] = 9223372036854775804LL;  // a multiple of the 4-byte element, so the file loads
  const auto file = temp_file("huge_schedule.json", j.dump());
  check_bad_input({"simulate", "--gpus", "2", "--fabric", "switch", "--schedule", file}, file + ": a transfer of");
}

TEST_CASE("an option shared by several commands has one help text in all of them", "[cli][options]") {
  // The line of `collsim COMMAND --help` that describes `flag`, from the flag on.
  const auto help_line = [](const std::string& command, const std::string& flag) {
    const auto r = run_collsim({command, "--help"});
    REQUIRE(r.code == 0);
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      const auto at = line.find(flag + " ");
      if (at != std::string::npos && line.find_first_not_of(' ') == at) return line.substr(at);
    }
    FAIL(command << " --help has no " << flag);
    return std::string();
  };
  const std::vector<std::pair<std::string, std::vector<std::string>>> shared{
      {"--network", {"simulate", "sweep", "compare", "calibrate", "validate"}},
      {"--dtype", {"simulate", "sweep", "validate"}},
      {"--params", {"simulate", "sweep", "compare", "calibrate"}},
      {"--chunk-size", {"simulate", "sweep", "explain", "validate"}},
      {"--link-bandwidth", {"simulate", "sweep", "compare", "topo"}},
  };
  for (const auto& [flag, commands] : shared) {
    const std::string first = help_line(commands.front(), flag);
    CHECK(first.size() > flag.size() + 20);  // a real description, not an empty one
    for (const auto& command : commands) {
      INFO(command << " " << flag);
      CHECK(help_line(command, flag) == first);
    }
  }
}

TEST_CASE("every command that reads a topology takes it as TOPOLOGY or --topology, not both", "[cli]") {
  // compare and calibrate took --topology; simulate and topo take it too (Python's topology=).
  const auto positional = run_collsim({"simulate", "dgx-h100", "--size", "1M", "--format", "json"});
  const auto flag = run_collsim({"simulate", "--topology", "dgx-h100", "--size", "1M", "--format", "json"});
  REQUIRE(positional.code == 0);
  CHECK(flag.code == 0);
  CHECK(flag.out == positional.out);
  CHECK(run_collsim({"topo", "--topology", "dgx-b200"}).out == run_collsim({"topo", "dgx-b200"}).out);
  check_bad_input({"simulate", "dgx-h100", "--topology", "dgx-a100", "--size", "1M"},
                  "--topology: found \"dgx-a100\" and the topology \"dgx-h100\"; expected one of them");
}

TEST_CASE("a schedule too large to hold names the ranks and the algorithm", "[cli]") {
  // direct all-reduce on 4096 GPUs: 4096 ranks x (3·4096 - 2) = 12286 chunks is 50.3 M buffer slots,
  // past the 2^24 (16.8 M) a materialised schedule holds (sim/schedule/builder.cpp); ring is
  // generated on demand instead. Without --ranks, every GPU of the topology is the count, and the
  // message says so instead of naming a flag the user never gave.
  check_bad_input({"simulate", "--gpus", "4096", "--fabric", "switch", "--size", "1M", "--algorithm", "direct"},
                  "every GPU of topology switch-4096gpu (no --ranks): direct allreduce on 4096 ranks: a schedule "
                  "of 4096 ranks x 12286 chunks");
  check_bad_input({"simulate", "--gpus", "4096", "--fabric", "switch", "--size", "1M", "--algorithm", "direct"},
                  "; expected fewer ranks (--ranks) or another --algorithm");
  check_bad_input({"simulate", "--gpus", "4096", "--ranks", "4096", "--fabric", "switch", "--size", "1M",
                   "--algorithm", "direct"},
                  "--ranks: direct allreduce on 4096 ranks: a schedule of 4096 ranks x 12286 chunks");
}

TEST_CASE("one thread driving G GPUs launches G collectives an iteration: the host's floor", "[cli][host]") {
  // NVIDIA/nccl-tests#123 (DGX A100, -g 8): 33.7 us for 8 GPUs, 4.2 us a launch
  // (topologies/host_costs.hpp). Ring all-reduce of 8 B on dgx-a100 takes 23.4 us on the GPUs
  // (6.6 us LL base + 14 steps x (0.6 us + 2 x 0.3 us of route)), below 8 x 4.2 = 33.6 us.
  const auto g8 = simulate_json({"dgx-a100", "--size", "8", "--gpus-per-thread", "8"});
  CHECK(g8["time_ps"] == 33'600'000);
  CHECK(g8["host_bound"] == true);
  CHECK(g8["gpus_per_thread"] == 8);
  CHECK(g8["collective_us"].get<double>() == Approx(23.4).margin(0.01));
  const auto g1 = simulate_json({"dgx-a100", "--size", "8"});
  CHECK(g1["host_bound"] == false);
  CHECK(g1["host_us"] == 4.2);
  CHECK(g1["time_ps"] == g1["collective_us"].get<double>() * 1e6);
  // At 1 GiB the collective takes milliseconds: the host's 33.6 us changes nothing.
  CHECK(simulate_json({"dgx-a100", "--size", "1G", "--gpus-per-thread", "8"})["time_ps"] ==
        simulate_json({"dgx-a100", "--size", "1G"})["time_ps"]);
  // The ideal α-β model has no host.
  const auto ideal = simulate_json({"--gpus", "8", "--fabric", "switch", "--size", "8", "--gpus-per-thread", "8"});
  CHECK(ideal["host_us"] == 0);
  CHECK(ideal["host_bound"] == false);
  // A parameter file sets the launch cost: 8 x 5 us = 40 us.
  const std::string params = collsim::testing::temp_file(
      "host-params.json", R"({"format": "collsim-params-1", "host_launch": "5us", "host_empty_call": "1us"})");
  CHECK(simulate_json({"dgx-a100", "--size", "8", "--gpus-per-thread", "8", "--params", params})["time_ps"] == 40'000'000);
  CHECK(simulate_json({"dgx-a100", "--size", "0", "--gpus-per-thread", "8", "--params", params})["time_ps"] == 8'000'000);
  // The table says the host set the time.
  CHECK_THAT(run_collsim({"simulate", "dgx-a100", "--size", "8", "--gpus-per-thread", "8"}).out,
             Catch::Contains("  host                  33.6 us  (8 GPUs per thread (--gpus-per-thread) x 4.2 us for a "
                             "launch; the host sets the time: the collective alone takes 23.4"));
  check_bad_input({"simulate", "dgx-a100", "--size", "8", "--gpus-per-thread", "0"}, "--gpus-per-thread: found \"0\", expected a whole number from 1 to 1024");
  check_bad_input({"simulate", "dgx-a100", "--size", "8", "--gpus-per-thread", "2000"}, "--gpus-per-thread: found \"2000\"");
  // A thread drives at most every rank (nccl-tests runs processes x nThread x nGpus ranks).
  check_bad_input({"simulate", "dgx-a100", "--size", "8", "--ranks", "2", "--gpus-per-thread", "8"},
                  "--gpus-per-thread: found 8 (--gpus-per-thread), but the run has 2 ranks; expected at most 2");
  // host_launch x G past the clock's end names the flag and the parameter, not --size.
  const std::string huge = collsim::testing::temp_file(
      "huge-host.json", R"({"format": "collsim-params-1", "host_launch": "9000000s"})");
  check_bad_input({"simulate", "dgx-a100", "--size", "8", "--gpus-per-thread", "2", "--params", huge},
                  "--gpus-per-thread: 2 x host_launch");
  check_bad_input({"simulate", "dgx-a100", "--size", "8", "--params",
                   collsim::testing::temp_file("bad-host.json", R"({"format": "collsim-params-1", "host_launch": "fast"})")},
                  "/host_launch");
}

TEST_CASE("a collective of 0 bytes takes the host's call under NCCL's model and its latencies under the ideal one", "[cli]") {
  // NCCL 2.30.7 discards a collective of count 0 (taskAppend, src/enqueue.cc: "Empty collectives can be
  // discarded"): the time is the host's call alone, 0.13 us per GPU the thread drives
  // (topologies/host_costs.hpp: 0.12-0.13 us measured on p5.48xlarge, one GPU per process).
  const auto nccl = simulate_json({"dgx-a100", "--size", "0"});
  CHECK(nccl["protocol"] != "none");
  CHECK(nccl["time_ps"] == 130'000);
  CHECK(nccl["host_bound"] == true);
  CHECK(nccl["closed_form_us"].is_null());
  CHECK(nccl["events"] == 0);
  // Eight GPUs from one thread (nccl-tests -g 8): eight calls.
  CHECK(simulate_json({"dgx-a100", "--size", "0", "--gpus-per-thread", "8"})["time_ps"] == 8 * 130'000);
  // The ideal model: ring all-reduce on 4 GPUs of a switch (1 us per link, two links a hop) sends
  // 2(N-1) = 6 empty messages one after the other, 2 us each.
  const auto ideal = simulate_json({"--gpus", "4", "--fabric", "switch", "--size", "0"});
  CHECK(ideal["protocol"] == "none");
  CHECK(ideal["time_ps"] == 6 * 2'000'000);
}

TEST_CASE("a run still going after 20 s says once how far it is and how long the rest takes", "[cli][progress]") {
  // A clock the test moves: 10 s in, nothing; at 30 s with 1,000 of 10,000 ops done, the rest
  // (9,000 ops at 1,000 per 30 s) needs 270 s: 5 minutes, rounded up; then never again.
  using Clock = collsim::run::ProgressNote::Clock;
  Clock::time_point now{};
  std::ostringstream err;
  collsim::run::ProgressNote note(err, std::chrono::seconds(20), [&] { return now; });
  now += std::chrono::seconds(10);
  note.progress(500, 10'000);
  CHECK(err.str().empty());
  now += std::chrono::seconds(20);
  note.progress(1'000, 10'000);
  CHECK(err.str() == "collsim: note: after 30 s, 1000 of 10000 ops (10.0 %) are done; about 5 minutes more at this "
                     "rate (Ctrl-C stops the run)\n");
  now += std::chrono::seconds(60);
  note.progress(5'000, 10'000);
  CHECK(err.str().find("5000") == std::string::npos);
  // Nothing done yet: no estimate.
  std::ostringstream none;
  collsim::run::ProgressNote idle(none, std::chrono::seconds(20), [&] { return now; });
  now += std::chrono::seconds(25);
  idle.progress(0, 10'000);
  CHECK(none.str() == "collsim: note: after 25 s, 0 of 10000 ops (0.0 %) are done; no estimate yet (Ctrl-C stops the run)\n");
}
}  // namespace cli_test
