// simulate --trace (Chrome trace event format) and topo --dot / --format json.
#include <catch2/catch.hpp>

#include <fstream>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_harness.hpp"
#include "topologies/load_json.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace trace_topo_cli_test {

using collsim::testing::check_bad_input;
using collsim::testing::scratch_dir;
using collsim::testing::run_collsim;
using collsim::testing::read_file;

namespace {

struct Slice {
  std::int64_t begin, end;
  std::uint64_t bytes;
};

// Runs simulate with --trace and --format json; returns (report, trace).
std::pair<nlohmann::json, nlohmann::json> traced(std::vector<std::string> args, const std::string& name) {
  const auto file = scratch_dir("trace_" + name) / "run.json";
  args.insert(args.begin(), "simulate");
  args.insert(args.end(), {"--format", "json", "--trace", file.string()});
  const auto r = run_collsim(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return {nlohmann::json::parse(r.out), nlohmann::json::parse(read_file(file))};
}

// Link track name ("gpu0->nvswitch", sub-tracks "gpu0->nvswitch #2") -> slices, from the trace.
std::map<std::string, std::map<std::string, std::vector<Slice>>> link_tracks(const nlohmann::json& trace) {
  std::map<int, std::string> names;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 1) names[e["tid"]] = e["args"]["name"];
  std::map<std::string, std::map<std::string, std::vector<Slice>>> out;  // link -> track -> slices
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e["pid"] != 1) continue;
    const std::string track = names.at(e["tid"]);
    const std::string link = track.substr(0, track.find(" #"));
    out[link][track].push_back({e["args"]["begin_ps"], e["args"]["end_ps"], e["args"]["bytes"]});
  }
  return out;
}

void check_against_report(const nlohmann::json& report, const nlohmann::json& trace, bool expect_one_lane) {
  REQUIRE(trace["traceEvents"].is_array());
  const auto tracks = link_tracks(trace);
  // Every link that carried data has a track, and its slices' bytes add up to the link's total.
  REQUIRE(tracks.size() == report["links"].size());
  for (const auto& l : report["links"]) {
    const std::string name = l["from"].get<std::string>() + "->" + l["to"].get<std::string>();
    INFO(name);
    REQUIRE(tracks.count(name) == 1);
    std::uint64_t bytes = 0;
    for (const auto& [track, slices] : tracks.at(name)) {
      auto sorted = slices;
      std::sort(sorted.begin(), sorted.end(), [](const Slice& a, const Slice& b) { return a.begin < b.begin; });
      for (std::size_t i = 0; i < sorted.size(); ++i) {
        bytes += sorted[i].bytes;
        CHECK(sorted[i].begin <= sorted[i].end);
        if (i > 0) CHECK(sorted[i - 1].end <= sorted[i].begin);  // no overlap within a (sub-)track
        CHECK(sorted[i].end <= report["time_ps"].get<std::int64_t>());
      }
    }
    CHECK(bytes == l["bytes"].get<std::uint64_t>());
    if (expect_one_lane) CHECK(tracks.at(name).size() == 1);
  }
}

// `args` followed by `path`.
std::vector<std::string> with_path(std::vector<std::string> args, const std::filesystem::path& path) {
  args.push_back(path.string());
  return args;
}

}  // namespace

TEST_CASE("simulate --trace: per link the slices' bytes add up to the link's total", "[cli][trace]") {
  const auto [report, trace] = traced({"dgx-a100", "--size", "64M", "--algorithm", "ring"}, "ring");
  check_against_report(report, trace, false);
  CHECK(trace["otherData"]["makespan_ps"] == report["time_ps"]);
  // One rank track per rank (pid 2).
  std::size_t rank_tracks = 0;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 2 && e["args"]["name"].get<std::string>().find('#') == std::string::npos)
      ++rank_tracks;
  CHECK(rank_tracks == 8);
}

TEST_CASE("simulate --trace --network fifo: slices on one link never overlap (one track each)", "[cli][trace]") {
  // Direct all-reduce sends to every peer at once: under fifo they queue on each GPU's one link.
  const auto [report, trace] =
      traced({"--gpus", "8", "--fabric", "switch", "--size", "8M", "--algorithm", "direct", "--network", "fifo"}, "fifo");
  check_against_report(report, trace, true);
}

TEST_CASE("simulate --trace under the flow model puts concurrent transfers on sub-tracks", "[cli][trace]") {
  const auto [report, trace] =
      traced({"--gpus", "8", "--fabric", "switch", "--size", "8M", "--algorithm", "direct"}, "flow");
  check_against_report(report, trace, false);
  const auto tracks = link_tracks(trace);
  // Max-min sharing: gpu0 sends its 7 parts at once over its one link, so that link has 7 sub-tracks.
  CHECK(tracks.at("gpu0->switch").size() == 7);
}

TEST_CASE("topo --dot writes Graphviz through Boost.Graph with link types and bandwidths", "[cli][topo]") {
  const auto r = run_collsim({"topo", "dgx-a100", "--dot"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("graph G {"));
  // 8 GPUs and one NVSwitch: 9 vertices, 8 edges, each labelled with type and bandwidth.
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') >= 9 + 8);
  std::size_t edges = 0;
  for (std::size_t p = r.out.find("--"); p != std::string::npos; p = r.out.find("--", p + 2)) ++edges;
  CHECK(edges == 8);
  CHECK_THAT(r.out, Catch::Contains("label=\"gpu0\", shape=box") && Catch::Contains("nvswitch\\n300 GB/s"));
  check_bad_input({"topo", "--dot"}, "--dot");
}

TEST_CASE("topo --format json is the normalised topology, which loads back to itself", "[cli][topo]") {
  for (const std::string name : {"dgx-a100", "dgx-a100-2node", "pcie-4gpu"}) {
    const auto first = run_collsim({"topo", name, "--format", "json"});
    REQUIRE(first.code == 0);
    const auto j = nlohmann::json::parse(first.out);
    CHECK(j["name"] == name);
    const auto file = scratch_dir("topo_" + name) / (name + ".json");
    std::ofstream(file) << first.out;
    const auto again = run_collsim({"topo", file.string(), "--format", "json"});
    CHECK(again.out == first.out);
    // The summary of the reloaded file equals the bundled one's.
    CHECK(run_collsim({"topo", file.string()}).out == run_collsim({"topo", name}).out);
  }
  const auto j = nlohmann::json::parse(run_collsim({"topo", "dgx-a100", "--format", "json"}).out);
  // dgx-a100: 300 GB/s per direction = 2.4e12 b/s, 300 ns per link (its file's description).
  CHECK(j["links"][0]["bandwidth"] == "2400000000000b/s");
  CHECK(j["links"][0]["latency"] == "300000ps");
}

TEST_CASE("topo --format json keeps the model parameters: every bundled machine simulates the same reloaded",
          "[cli][topo]") {
  // The expected output is the bundled machine's own: the normalised file must be the same machine.
  // dgx-a100's params set protocol auto, 24 channels and an NVLink efficiency of 0.8 (its file);
  // without them it loaded as an ideal one-channel machine, 20 % faster.
  const auto dgx = nlohmann::json::parse(run_collsim({"topo", "dgx-a100", "--format", "json"}).out);
  CHECK(dgx["params"]["protocol"] == "auto");
  CHECK(dgx["params"]["channels"] == 24);
  CHECK(dgx["params"]["link_efficiency"]["nvlink"] == 0.8);
  for (const std::string_view bundled_name : collsim::topo::bundled_topology_names()) {
    const std::string name(bundled_name);
    INFO(name);
    const auto json = run_collsim({"topo", name, "--format", "json"});
    REQUIRE(json.code == 0);
    const auto file = (scratch_dir("topo_params_" + name) / (name + ".json")).string();
    std::ofstream(file) << json.out;
    for (const std::string size : {"8", "1M"}) {
      INFO(size);
      const auto bundled = run_collsim({"simulate", name, "--size", size});
      const auto reloaded = run_collsim({"simulate", file, "--size", size});
      REQUIRE(bundled.code == 0);
      CHECK(reloaded.out == bundled.out);  // byte-identical: same name, same parameters, same times
    }
  }
  // A GPU's own reduction bandwidth is kept too: 50 GB/s = 4e11 b/s.
  const auto dir = scratch_dir("topo_reduce_bw");
  std::ofstream(dir / "two.json") << R"({"nodes": [{"id": "g0", "type": "gpu", "reduce_bandwidth": "50GB/s"},
      {"id": "g1", "type": "gpu"}],
      "links": [{"from": "g0", "to": "g1", "type": "nvlink", "bandwidth": "100GB/s", "latency": "1us"}]})";
  const auto two = nlohmann::json::parse(run_collsim({"topo", (dir / "two.json").string(), "--format", "json"}).out);
  CHECK(two["nodes"][0]["reduce_bandwidth"] == "400000000000b/s");
  CHECK_FALSE(two["nodes"][1].contains("reduce_bandwidth"));
  CHECK_FALSE(two.contains("params"));
}

TEST_CASE("output files: a FIFO is written through, a symlink's target replaced with the link kept", "[cli][output]") {
  const auto dir = scratch_dir("output_kinds");
  const std::vector<std::string> run{"simulate", "--gpus", "2", "--fabric", "switch", "--size", "8", "--trace"};
  // A FIFO stays a FIFO and its reader gets the whole trace (replacing it with a regular file, as
  // a temporary file renamed over it would, leaves the reader with nothing). The read end is
  // opened without blocking first, so a broken writer cannot hang the test.
  const auto fifo = dir / "trace.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(fd >= 0);
  std::atomic<bool> done = false;
  int code = -1;
  std::thread writer([&] {
    code = run_collsim(with_path(run, fifo)).code;
    done = true;
  });
  std::string text;
  for (char buf[4096];;) {
    const bool finished = done;  // read before draining, so nothing written before it is lost
    const ::ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<std::size_t>(n));
    } else if (finished) {
      break;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  writer.join();
  ::close(fd);
  CHECK(code == 0);
  CHECK(std::filesystem::is_fifo(std::filesystem::symlink_status(fifo)));
  const auto trace = nlohmann::json::parse(text, nullptr, false);
  REQUIRE_FALSE(trace.is_discarded());
  CHECK(trace["traceEvents"].is_array());

  // A symlink to a regular file: the file gets the trace, the link stays a link to it.
  const auto target = dir / "real.json";
  std::ofstream(target) << "old";
  const auto link = dir / "link.json";
  std::filesystem::create_symlink("real.json", link);
  REQUIRE(run_collsim(with_path(run, link)).code == 0);
  CHECK(std::filesystem::is_symlink(link));
  CHECK(std::filesystem::read_symlink(link) == "real.json");
  CHECK(nlohmann::json::parse(read_file(target))["traceEvents"].is_array());
  // Nothing else is left in the folder (no temporary file).
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  CHECK(entries == 3);
}
}  // namespace trace_topo_cli_test
