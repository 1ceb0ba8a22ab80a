// collsim simulate --save-schedule / --schedule: round trips through files for
// every built-in algorithm, a hand-written schedule against the closed form, and the errors.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "algorithms/registry.hpp"
#include "algorithms/ring_stream.hpp"
#include "sim/schedule/json_io.hpp"
#include "tests/cli/cli_harness.hpp"
#include "run/plan.hpp"
#include "topologies/generate.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace schedule_json_cli_test {

using namespace collsim::testing;

namespace {

namespace fs = std::filesystem;

// The seed's ring all-reduce on 3 ranks, by hand, dependencies inferred: at step s (1..4) rank r
// sends chunk (r - s) mod 3 to rank r + 1 mod 3, adding it in during steps 1-2, copying in 3-4.
std::string ring3_file(collsim::Bytes size) {
  std::string ops;
  for (int step = 1; step <= 4; ++step)
    for (int r = 0; r < 3; ++r)
      ops += fmt::format("{}{{\"src\": {}, \"dst\": {}, \"chunk\": {}, \"combine\": \"{}\", \"step\": {}}}",
                         ops.empty() ? "" : ",\n", r, (r + 1) % 3, (r - step + 6) % 3, step <= 2 ? "reduce" : "copy",
                         step);
  return fmt::format(R"({{"format": "collsim-schedule-1", "algorithm": "my-ring", "collective": "allreduce",
"ranks": 3, "size_bytes": {}, "ops": [
{}]}})",
                     size, ops);
}

}  // namespace

TEST_CASE("every built-in algorithm: simulating the saved schedule gives byte-identical output", "[cli][schedule]") {
  const auto registry = collsim::algo::builtin_registry();
  const auto dir = scratch_dir("roundtrip");
  const auto file = (dir / "s.json").string();
  for (const auto& info : registry.all()) {
    for (const char* n : {"3", "8"}) {
      const std::string collective(collsim::sched::collective_name(info.collective));
      std::vector<std::string> fabric{"--gpus", n, "--fabric", "switch", "--format", "json"};
      // NVLS needs a switch that reduces: dgx-h100's NVSwitch, whose helper rank the file's NVLS
      // schedule is placed on again when it is loaded.
      if (info.switch_reduction) fabric = {"dgx-h100", "--format", "json"};
      // hierarchical needs its ranks on hosts: 3 hosts of 1 GPU, or 2 hosts of 4.
      if (info.name == "hierarchical") fabric.insert(fabric.end(), {"--nodes", std::string(n) == "8" ? "2" : "3"});
      std::vector<std::string> built{
          "simulate", "--algorithm", std::string(info.name), "--collective", collective,
          "--size",   "1000003",     "--save-schedule",      file};
      // A flag the algorithm does not use is refused, so --chunk-size goes to the chunked ones only.
      if (info.pipelined) built.insert(built.end(), {"--chunk-size", "64K"});
      // The file brings its ranks, and its ops their channels: one, as the generated fabrics' default.
      if (info.switch_reduction) built.insert(built.end(), {"--ranks", n, "--channels", "1"});
      if (info.collective == collsim::sched::Collective::Broadcast ||
          info.collective == collsim::sched::Collective::Reduce)
        built.insert(built.end(), {"--root", "1"});
      built.insert(built.end(), fabric.begin(), fabric.end());
      std::vector<std::string> loaded{"simulate", "--schedule", file};
      loaded.insert(loaded.end(), fabric.begin(), fabric.end());
      INFO(info.name << " " << collective << " N = " << n);
      const auto a = run_collsim(built);
      REQUIRE(a.code == 0);
      const auto b = run_collsim(loaded);
      INFO(b.err);
      REQUIRE(b.code == 0);
      // A file is anybody's schedule: it has no closed form (the built one may) and no pipeline chunk
      // size (its chunks are given one by one); all else is identical.
      const auto without_closed_form = [&info](const std::string& text) {
        auto j = nlohmann::ordered_json::parse(text);
        for (const char* key : {"closed_form_us", "chunk_bytes", "chunk_source"}) j.erase(key);
        if (info.switch_reduction) j.erase("channels_source");  // "--channels" against the file's note
        return j.dump(2);
      };
      CHECK(nlohmann::ordered_json::parse(b.out)["closed_form_us"].is_null());
      CHECK(without_closed_form(b.out) == without_closed_form(a.out));
      CHECK(b.err.empty());
    }
  }
  // Helper ranks: a parameter server on the switch node, placed again with --ps-node.
  const auto a = run_collsim({"simulate", "--algorithm", "ps", "--ps-node", "switch", "--size", "1M", "--gpus", "4",
                              "--fabric", "switch", "--format", "json", "--save-schedule", file});
  REQUIRE(a.code == 0);
  const auto b = run_collsim(
      {"simulate", "--schedule", file, "--ps-node", "switch", "--gpus", "4", "--fabric", "switch", "--format", "json"});
  REQUIRE(b.code == 0);
  CHECK(b.out == a.out);
  check_bad_input({"simulate", "--schedule", file, "--gpus", "4", "--fabric", "switch"},
                  "--ps-node: found 0 node(s), but " + file + " has 1 helper rank(s); expected one node id per helper");
  fs::remove_all(dir);
}

TEST_CASE("a hand-written ring all-reduce simulates to the closed form", "[cli][schedule][oracle]") {
  const auto dir = scratch_dir("ring3");
  const auto file = (dir / "ring3.json").string();
  std::ofstream(file) << ring3_file(3'000'000);
  const auto r = run_collsim({"simulate", "--schedule", file, "--gpus", "3", "--fabric", "ring", "--link-bandwidth",
                              "25GB/s", "--link-latency", "1us", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["algorithm"] == "my-ring");
  CHECK(j["ranks"] == 3);
  CHECK(j["size_bytes"] == 3'000'000);
  CHECK(j["steps"] == 4);
  // 2(N-1)·(α + (S/N)/B) = 4 · (1 us + 1,000,000 B / 25e9 B/s) = 4 · 41 us = 164 us; every send
  // crosses one ring link and no two share a direction.
  CHECK(j["time_ps"] == 164'000'000);
  // 2(N-1)/N · S per rank.
  CHECK(j["bytes_sent_per_rank_max"] == 4'000'000);
  fs::remove_all(dir);
}

TEST_CASE("simulate --save-schedule - prints only the schedule on standard output", "[cli][schedule]") {
  const auto r = run_collsim({"simulate", "--gpus", "3", "--fabric", "ring", "--size", "6", "--save-schedule", "-"});
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  const auto j = nlohmann::json::parse(r.out);  // throws on anything but one JSON document
  CHECK(j["format"] == "collsim-schedule-1");
  CHECK(j["algorithm"] == "ring");
  CHECK(j["collective"] == "allreduce");
  CHECK(j["ranks"] == 3);
  CHECK(j["size_bytes"] == 6);
  CHECK(j["ops"].size() == 12);  // 2(N-1) steps of N sends
  CHECK(j["ops"][0] == nlohmann::json::parse(R"({"src": 0, "dst": 1, "chunk": 2, "combine": "reduce", "step": 1})"));
  CHECK(collsim::sched::parse_schedule_json(r.out, "-").ops.size() == 12);

  // With the default topology, its notice goes to stderr and stdout still holds only the schedule.
  const auto d = run_collsim({"simulate", "--size", "1M", "--save-schedule", "-"});
  REQUIRE(d.code == 0);
  CHECK_THAT(d.err, Catch::Contains("dgx-a100"));
  CHECK(nlohmann::json::parse(d.out)["ranks"] == 8);

  check_bad_input({"simulate", "--size", "1M", "--save-schedule", "-", "--format", "json"},
                  "--format: no report is printed when --save-schedule - writes the schedule to standard output");
}

TEST_CASE("simulate --save-schedule FILE writes the file atomically beside the report", "[cli][schedule]") {
  const auto dir = scratch_dir("save");
  const auto file = dir / "ring.json";
  std::ofstream(file) << "old contents";
  const auto r = run_collsim({"simulate", "--gpus", "3", "--fabric", "ring", "--size", "6", "--save-schedule",
                              file.string(), "--format", "json"});
  REQUIRE(r.code == 0);
  CHECK(nlohmann::json::parse(r.out)["steps"] == 4);  // the report still goes to stdout
  const auto saved = read_file(file);
  CHECK(saved ==
        run_collsim({"simulate", "--gpus", "3", "--fabric", "ring", "--size", "6", "--save-schedule", "-"}).out);
  // Only the file itself: the temporary file was renamed over it.
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);

  const auto missing = run_collsim({"simulate", "--gpus", "3", "--fabric", "ring", "--size", "6", "--save-schedule",
                                    (dir / "no-such-dir" / "s.json").string()});
  CHECK(missing.code == 74);
  CHECK(missing.out.empty());
  CHECK(missing.err == "collsim: error: --save-schedule: folder " + (dir / "no-such-dir").string() +
                           " does not exist (for " + (dir / "no-such-dir" / "s.json").string() +
                           "); expected an existing, writable folder\n");
  fs::remove_all(dir);
}

TEST_CASE("simulate --schedule errors: flags the file replaces, topologies too small, wrong files",
          "[cli][schedule][errors]") {
  const auto dir = scratch_dir("errors");
  const auto good = (dir / "ring3.json").string();
  std::ofstream(good) << ring3_file(6);
  for (const char* flag : {"--size", "--ranks", "--collective", "--algorithm", "--root", "--chunk-size", "--ps-shards"})
    check_bad_input({"simulate", "--schedule", good, flag, "1"},
                    std::string(flag) +
                        ": not allowed with --schedule, which takes the collective, algorithm, ranks "
                        "and size from the file");
  check_bad_input({"simulate", "--schedule", good, "--gpus", "2", "--fabric", "ring"},
                  "--schedule: " + good + " has 3 ranks, but topology ring-2gpu has only 2 GPUs");
  check_bad_input({"simulate", "--schedule", (dir / "none.json").string()},
                  "--schedule: " + (dir / "none.json").string() + " cannot be read (No such file or directory); "
                  "expected a schedule JSON file");
  // A directory is named as one, not read as empty text ("unexpected end of input").
  check_bad_input({"simulate", "--schedule", dir.string()},
                  "--schedule: " + dir.string() + " is a directory; expected a schedule JSON file");
  check_bad_input({"simulate", "--schedule", "-"}, "--schedule: found \"-\", expected a file");

  // A chunk never reduced: without rank 2's step-2 send, rank 0's chunk 0 keeps only A0.
  std::string text = ring3_file(6);
  const std::string op5 = ",\n{\"src\": 2, \"dst\": 0, \"chunk\": 0, \"combine\": \"reduce\", \"step\": 2}";
  REQUIRE(text.find(op5) != std::string::npos);
  text.erase(text.find(op5), op5.size());
  const auto wrong = (dir / "wrong.json").string();
  std::ofstream(wrong) << text;
  check_bad_input({"simulate", "--schedule", wrong, "--gpus", "3", "--fabric", "ring"},
                  wrong +
                      ": the schedule does not compute allreduce: rank 0 chunk 0: holds A0 but allreduce needs "
                      "A0+B0+C0");

  const auto bad_rank = (dir / "bad_rank.json").string();
  std::ofstream(bad_rank) << R"({"format": "collsim-schedule-1", "algorithm": "t", "collective": "allreduce",
    "ranks": 2, "size_bytes": 2, "ops": [{"src": 0, "dst": 2, "chunk": 0, "combine": "reduce", "step": 1}]})";
  check_bad_input({"simulate", "--schedule", bad_rank}, bad_rank + ": /ops/0/dst: found 2, expected a rank");

  const auto bad_json = (dir / "bad.json").string();
  std::ofstream(bad_json) << "{\n  \"ops\": [}\n";
  check_bad_input({"simulate", "--schedule", bad_json}, bad_json + ":2:11: invalid JSON");
  fs::remove_all(dir);
}

TEST_CASE("ops generated on demand print what the materialised schedule prints, byte for byte", "[cli][schedule]") {
  // Without --save-schedule the ring algorithms run from their stream (sched::OpStream); with it
  // the schedule is built and saved. Both runs must print the same document.
  const auto dir = scratch_dir("on-demand");
  const auto file = (dir / "s.json").string();
  for (const char* collective : {"allreduce", "reduce-scatter", "allgather"})
    for (const char* fabric : {"switch", "ring"})
      for (const char* format : {"json", "table"}) {
        INFO(collective << " on " << fabric << ", " << format);
        const std::vector<std::string> args{"simulate",   "--gpus", "24",       "--fabric", fabric, "--size",
                                            "1000003",    "--collective", collective, "--format", format};
        const auto streamed = run_collsim(args);
        auto saving = args;
        saving.insert(saving.end(), {"--save-schedule", file});
        const auto built = run_collsim(saving);
        REQUIRE(streamed.code == 0);
        REQUIRE(built.code == 0);
        CHECK(streamed.out == built.out);
      }
  // A protocol's step latency and reduction cost are per-op delays, which only a materialised
  // schedule carries: dgx-a100's protocols on one channel in whole chunks must give the same
  // document both ways. The stream is rank-symmetric there (each ring flow on its own GPU-NVSwitch
  // links: sim/rank_fold.hpp), so it simulates one rank for all 8 and counts that rank's events.
  for (const char* size : {"1M", "1G"}) {
    INFO("dgx-a100, one channel, " << size);
    const std::vector<std::string> args{"simulate", "dgx-a100", "--channels", "1", "--slice", "0",
                                        "--size",   size,       "--format",   "json"};
    auto saving = args;
    saving.insert(saving.end(), {"--save-schedule", file});
    const auto streamed = run_collsim(args);
    const auto built = run_collsim(saving);
    REQUIRE(streamed.code == 0);
    auto folded = nlohmann::ordered_json::parse(streamed.out), whole = nlohmann::ordered_json::parse(built.out);
    CHECK(folded["rank_images"] == 8);
    CHECK(whole["rank_images"] == 1);
    CHECK(folded["events"].get<std::uint64_t>() < whole["events"].get<std::uint64_t>());
    for (auto* j : {&folded, &whole}) {
      j->erase("rank_images");
      j->erase("events");
    }
    CHECK(folded.dump(2) == whole.dump(2));
  }
}

TEST_CASE("past the materialised schedule's limit, a flag that needs every op is named", "[cli][schedule][errors]") {
  // 16,384 ranks x 16,384 parts is past ScheduleBuilder::kMaxSlots (2^24): ring all-reduce runs from
  // its stream, but --save-schedule, --verify and --trace need the ops built.
  const std::vector<std::string> big{"simulate", "--gpus", "16384", "--fabric", "switch", "--size", "1G"};
  auto save = big;
  save.insert(save.end(), {"--save-schedule", (scratch_dir("too-big") / "s.json").string()});
  check_bad_input(save, "--save-schedule: needs every op");
  auto verify = big;
  verify.push_back("--verify");
  check_bad_input(verify, "--verify: needs every op");
}

TEST_CASE("a timeline (--trace) too large for memory is refused instead of meeting the OOM killer", "[cli][errors]") {
  // Ring all-reduce on 768 GPUs is 2·767·768 = 1,178,112 ops, past the 2^20 a timeline may hold
  // (about 8 KiB each: 523,264 ops took 4.0 GiB).
  const auto file = (scratch_dir("trace-too-big") / "t.json").string();
  check_bad_input({"simulate", "--gpus", "768", "--fabric", "switch", "--size", "1M", "--trace", file},
                  "--trace: a timeline of 1178112 ops");
  CHECK_FALSE(std::filesystem::exists(file));
}

TEST_CASE("a run of a billion transfers or more says first how long it will take", "[cli][schedule]") {
  // Ring all-reduce has 2(N-1)·N transfers: 19,999,800,000 at N = 100,000 (over an hour at the
  // docs/performance.md's 5 million a second), 536,838,144 at N = 16,384 (its 2-minute run: no note).
  // On a switch with chunks of one size the run folds to one rank by symmetry (sim/rank_fold.hpp):
  // 2(N-1) transfers, no note either.
  const auto bw = collsim::Bandwidth{400'000'000'000};
  const auto plan_of = [](collsim::sched::Rank n, collsim::Bytes size, const collsim::topo::Topology& t, bool fold) {
    collsim::algo::Request request;
    request.nranks = n;
    request.size = size;
    collsim::run::Plan plan;
    plan.stream = collsim::algo::make_ring_stream(request, collsim::sched::Collective::AllReduce);
    plan.rank_to_node.assign(t.gpus().begin(), t.gpus().begin() + n);
    plan.fold_ranks = fold;
    return plan;
  };
  const auto t100k = collsim::topo::generate_fabric(collsim::topo::Fabric::Switch, 100'000, bw, collsim::Time{1'000'000});
  const auto t16k = collsim::topo::generate_fabric(collsim::topo::Fabric::Switch, 16'384, bw, collsim::Time{1'000'000});
  std::ostringstream whole, uneven, folded, small;
  collsim::run::long_run_notice(plan_of(100'000, 400'000'000, t100k, false), t100k, whole);
  collsim::run::long_run_notice(plan_of(100'000, collsim::Bytes{1} << 20, t100k, true), t100k, uneven);
  collsim::run::long_run_notice(plan_of(100'000, 400'000'000, t100k, true), t100k, folded);
  collsim::run::long_run_notice(plan_of(16'384, collsim::Bytes{1} << 20, t16k, false), t16k, small);
  const std::string note = "collsim: note: simulating 2e+10 transfers takes about 66 minutes or more at 5 million a second; "
                           "`collsim algorithms` gives each algorithm's closed form at once\n";
  CHECK(whole.str() == note);
  CHECK(uneven.str() == note);  // 1 MiB over 100,000 ranks: chunks of two sizes, no symmetry
  CHECK(folded.str().empty());
  CHECK(small.str().empty());
}
}  // namespace schedule_json_cli_test
