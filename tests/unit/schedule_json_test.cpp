// Schedule files (sim/schedule/json_io.hpp, validation/schedule_file.hpp): round trips of every
// built-in algorithm, hand-written files, and the errors for wrong ones.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "algorithms/host_grid.hpp"
#include "algorithms/registry.hpp"
#include "sim/schedule/builder.hpp"
#include "sim/schedule/explicit_deps.hpp"
#include "sim/schedule/json_io.hpp"
#include "validation/schedule_file.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace schedule_json_test {

using namespace collsim;

namespace {

std::string to_json(const sched::Schedule& s) {
  std::ostringstream out;
  sched::write_schedule_json(s, out);
  return out.str();
}

// The seed's ring all-reduce on 3 ranks (chunk c of the ring goes r -> r+1), written by hand:
// steps 1-2 reduce-scatter, 3-4 all-gather. `deps` is spliced into the ops (empty: inferred).
std::string ring3(const std::vector<std::string>& deps = {}, const std::string& extra_op_key = "") {
  // (src, dst, chunk, combine, step) by the seed's table: at step s rank r sends chunk (r - s + 3) mod 3.
  const char* ops[12] = {R"("src": 0, "dst": 1, "chunk": 2, "combine": "reduce", "step": 1)",
                         R"("src": 1, "dst": 2, "chunk": 0, "combine": "reduce", "step": 1)",
                         R"("src": 2, "dst": 0, "chunk": 1, "combine": "reduce", "step": 1)",
                         R"("src": 0, "dst": 1, "chunk": 1, "combine": "reduce", "step": 2)",
                         R"("src": 1, "dst": 2, "chunk": 2, "combine": "reduce", "step": 2)",
                         R"("src": 2, "dst": 0, "chunk": 0, "combine": "reduce", "step": 2)",
                         R"("src": 0, "dst": 1, "chunk": 0, "combine": "copy", "step": 3)",
                         R"("src": 1, "dst": 2, "chunk": 1, "combine": "copy", "step": 3)",
                         R"("src": 2, "dst": 0, "chunk": 2, "combine": "copy", "step": 3)",
                         R"("src": 0, "dst": 1, "chunk": 2, "combine": "copy", "step": 4)",
                         R"("src": 1, "dst": 2, "chunk": 0, "combine": "copy", "step": 4)",
                         R"("src": 2, "dst": 0, "chunk": 1, "combine": "copy", "step": 4)"};
  std::string text = R"({"format": "collsim-schedule-1", "algorithm": "my-ring", "collective": "allreduce",
 "ranks": 3, "size_bytes": 3000000, "ops": [)";
  for (int i = 0; i < 12; ++i) {
    text += i == 0 ? "\n  {" : ",\n  {";
    text += ops[i];
    if (!deps.empty()) text += ", \"deps\": " + deps[i];
    if (i == 0) text += extra_op_key;
    text += "}";
  }
  return text + "\n]}\n";
}

// The dependencies the builder infers for ring3(), worked out by hand from data flow: op 3 sends
// rank 0's chunk 1, which op 2 wrote; op 4 sends rank 1's chunk 2 (op 0); op 5 rank 2's chunk 0
// (op 1). Op 6 sends rank 0's chunk 0 (written by op 5) into rank 1's chunk 0, which op 1 read;
// likewise ops 7 and 8. Op 9 sends rank 0's chunk 2 (op 8 wrote it) into rank 1's chunk 2, which
// op 0 wrote and op 4 read since: ops 0, 4 and 8; likewise 10 and 11.
const std::vector<std::string> kRing3Deps{"[]",     "[]",     "[]",     "[2]",       "[0]",       "[1]",
                                          "[1, 5]", "[2, 3]", "[0, 4]", "[0, 4, 8]", "[1, 5, 6]", "[2, 3, 7]"};

sched::Schedule parse(const std::string& text) { return sched::parse_schedule_json(text, "t.json"); }

void check_rejected(const std::string& text, const std::string& what) {
  INFO(text);
  REQUIRE_THROWS_AS(validation::parse_verified_schedule(text, "t.json"), sched::ScheduleFileError);
  try {
    (void)validation::parse_verified_schedule(text, "t.json");
  } catch (const sched::ScheduleFileError& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Catch::StartsWith("t.json") && Catch::Contains(what));
    CHECK(msg.find('\n') == std::string::npos);
  }
}

// A minimal valid header (3 ranks, S = 3: chunks of one byte) around `ops`.
std::string with_ops(const std::string& ops, const std::string& more_header = "") {
  return R"({"format": "collsim-schedule-1", "algorithm": "t", "collective": "allreduce", "ranks": 3, "size_bytes": 3)" +
         more_header + R"(, "ops": [)" + ops + "]}";
}

}  // namespace

TEST_CASE("every built-in schedule survives a save and a load unchanged", "[schedule][json]") {
  const auto registry = algo::builtin_registry();
  for (const auto& info : registry.all()) {
    for (sched::Rank n : {1u, 3u, 8u}) {
      for (Bytes size : {Bytes{5}, Bytes{1000003}}) {
        algo::Request req{info.collective, n, size};
        req.root = n - 1;                  // used by broadcast and reduce only
        req.chunk_size = Bytes{64} << 10;  // tree algorithms pipeline 1000003 bytes in 16 chunks
        if (info.name == "hierarchical") req.hosts = algo::equal_hosts(n, n == 8 ? 2 : n);  // needs hosts
        INFO(info.name << " " << sched::collective_name(info.collective) << ", N = " << n << ", S = " << size);
        const sched::Schedule built = info.build(req);
        const std::string text = to_json(built);
        const sched::Schedule loaded = parse(text);
        CHECK(loaded == built);
        CHECK(to_json(loaded) == text);
      }
    }
  }
}

TEST_CASE("parameter-server schedules with helper ranks and shards round-trip", "[schedule][json]") {
  const auto registry = algo::builtin_registry();
  const auto& ps = registry.find(sched::Collective::AllReduce, "ps");
  algo::Request req{sched::Collective::AllReduce, 4, 1001};
  req.ps_shards = 2;
  req.ps_external_server = true;
  const sched::Schedule built = ps.build(req);
  REQUIRE(built.header.helpers == 2);
  const std::string text = to_json(built);
  CHECK(nlohmann::json::parse(text)["helpers"] == 2);
  CHECK(parse(text) == built);
}

TEST_CASE("the writer omits what the reader restores and keeps what it cannot", "[schedule][json]") {
  const auto registry = algo::builtin_registry();
  const sched::Schedule ring =
      registry.find(sched::Collective::AllReduce, "ring").build({sched::Collective::AllReduce, 3, 6});
  const auto j = nlohmann::json::parse(to_json(ring));
  // split_even(6, 3) chunks, inferred deps, no helpers, channel 0, no root for all-reduce.
  CHECK_FALSE(j.contains("chunks"));
  CHECK_FALSE(j.contains("helpers"));
  CHECK_FALSE(j.contains("root"));
  CHECK(j["ops"].size() == 12);  // 2(N-1) steps of N ops
  for (const auto& op : j["ops"]) {
    CHECK_FALSE(op.contains("deps"));
    CHECK_FALSE(op.contains("channel"));
  }

  // A dependency the inference would not add (op 3 also waits for op 0): every op's deps are
  // written, and reading them back gives the same schedule.
  sched::Schedule extra = ring;
  std::vector<std::vector<sched::OpId>> deps;
  for (sched::OpId i = 0; i < extra.ops.size(); ++i)
    deps.emplace_back(extra.deps_of(i).begin(), extra.deps_of(i).end());
  deps[3].push_back(0);
  sched::set_deps(extra, deps);
  const std::string text = to_json(extra);
  const auto je = nlohmann::json::parse(text);
  CHECK(je["ops"][0]["deps"] == nlohmann::json::array());
  CHECK(je["ops"][3]["deps"] == nlohmann::json({0, 2}));
  CHECK(parse(text) == extra);
}

TEST_CASE("a hand-written ring all-reduce loads with the dependencies of data flow", "[schedule][json]") {
  const sched::Schedule s = validation::parse_verified_schedule(ring3(), "ring3.json");
  CHECK(s.algorithm == "my-ring");
  CHECK(s.header.nranks == 3);
  CHECK(s.steps == 4);
  CHECK(s.chunks == sched::split_even(3000000, 3));
  REQUIRE(s.ops.size() == 12);
  for (sched::OpId i = 0; i < 12; ++i) {
    INFO("op " << i);
    const auto want = nlohmann::json::parse(kRing3Deps[i]).get<std::vector<sched::OpId>>();
    const auto got = s.deps_of(i);
    CHECK(std::vector<sched::OpId>(got.begin(), got.end()) == want);
  }
  // The same deps given explicitly give the same schedule.
  CHECK(validation::parse_verified_schedule(ring3(kRing3Deps), "ring3.json") == s);
}

TEST_CASE("explicit deps may order data flow through other ops, and may add order", "[schedule][json]") {
  // Op 6 must come after ops 1 and 5; op 5 waits for op 1, so listing op 5 alone is enough.
  auto deps = kRing3Deps;
  deps[6] = "[5]";
  const sched::Schedule s = validation::parse_verified_schedule(ring3(deps), "t.json");
  CHECK(std::vector<sched::OpId>(s.deps_of(6).begin(), s.deps_of(6).end()) == std::vector<sched::OpId>{5});
  // An extra dependency (op 1 after op 0) is kept as given; lists are read in any order.
  deps = kRing3Deps;
  deps[1] = "[0]";
  deps[6] = "[5, 1]";
  const sched::Schedule t = validation::parse_verified_schedule(ring3(deps), "t.json");
  CHECK(std::vector<sched::OpId>(t.deps_of(1).begin(), t.deps_of(1).end()) == std::vector<sched::OpId>{0});
  CHECK(std::vector<sched::OpId>(t.deps_of(6).begin(), t.deps_of(6).end()) == std::vector<sched::OpId>{1, 5});
}

TEST_CASE("a schedule that does not compute its collective is rejected naming the rank and chunk",
          "[schedule][json][errors]") {
  // Without op 5 (rank 2 adds its partial chunk 0 into rank 0's), rank 0's chunk 0 is never
  // reduced: it keeps A0, and the all-gather then spreads A0.
  std::string text = ring3();
  const std::string op5 = R"(,
  {"src": 2, "dst": 0, "chunk": 0, "combine": "reduce", "step": 2})";
  REQUIRE(text.find(op5) != std::string::npos);
  text.erase(text.find(op5), op5.size());
  CHECK_NOTHROW(parse(text));  // well-formed, so the structural reader accepts it
  check_rejected(text,
                 "the schedule does not compute allreduce: rank 0 chunk 0: holds A0 but allreduce needs A0+B0+C0");

  // A chunk table with a hole: data chunk 1 starts at byte 2 instead of 1.
  check_rejected(with_ops(R"({"src": 0, "dst": 1, "chunk": 0, "combine": "reduce", "step": 1})",
                          R"(, "chunks": [{"offset": 0, "size": 1}, {"offset": 2, "size": 1}])"),
                 "the chunk table does not fit allreduce: data chunk 1 starts at byte 2, expected 1");

  // Sending a chunk that holds nothing yet: broadcast from root 0, where rank 1 sends first.
  check_rejected(R"({"format": "collsim-schedule-1", "algorithm": "t", "collective": "broadcast", "ranks": 2,
                     "root": 0, "size_bytes": 2, "ops": [{"src": 1, "dst": 0, "chunk": 0, "combine": "copy", "step": 1}]})",
                 "op 0 (step 1): rank 1 sends chunk 0, which holds no defined data there");
}

TEST_CASE("dependency errors: cycles, later ops, missing order, mixed", "[schedule][json][errors]") {
  const std::string a = R"({"src": 0, "dst": 1, "chunk": 0, "combine": "reduce", "step": 1)";
  const std::string b = R"({"src": 1, "dst": 2, "chunk": 1, "combine": "reduce", "step": 1)";
  const std::string c = R"({"src": 2, "dst": 0, "chunk": 2, "combine": "reduce", "step": 1)";
  // Op 0 waits for op 1, op 1 for op 2, op 2 for op 0.
  check_rejected(with_ops(a + R"(, "deps": [1]}, )" + b + R"(, "deps": [2]}, )" + c + R"(, "deps": [0]})"),
                 "t.json: /ops/0/deps: the dependencies form a cycle (op 0 -> op 1 -> op 2 -> op 0, each waiting for "
                 "the next), expected none");
  check_rejected(with_ops(a + R"(, "deps": [1]}, )" + b + R"(, "deps": [0]})"),
                 "/ops/0/deps: the dependencies form a cycle (op 0 -> op 1 -> op 0, each waiting for the next)");
  // A later op without a cycle: op 0 waits for op 1, which waits for nothing.
  check_rejected(with_ops(a + R"(, "deps": [1]}, )" + b + R"(, "deps": []})"),
                 "/ops/0/deps/0: op 0 depends on op 1, which comes later in the file; expected every op after the ops "
                 "it depends on");
  check_rejected(with_ops(a + R"(, "deps": [0]})"), "/ops/0/deps/0: op 0 depends on itself, expected another op");
  check_rejected(with_ops(a + R"(, "deps": []}, )" + b + R"(, "deps": [0, 0]})"),
                 "/ops/1/deps/1: op 0 is listed twice, expected each dependency once");
  check_rejected(with_ops(a + R"(, "deps": [5]})"),
                 "/ops/0/deps/0: found 5, expected an op index into /ops: a whole number from 0 to 0");
  check_rejected(with_ops(a + R"(, "deps": []}, )" + b + "}"),
                 "/ops/1: missing key \"deps\": op 0 lists its deps, so every op must ([] for none)");
  // Every dep empty: op 3 sends rank 0's chunk 1, which op 2 writes (see kRing3Deps).
  check_rejected(ring3(std::vector<std::string>(12, "[]")),
                 "/ops/3/deps: op 3 sends chunk 1 of rank 0, which op 2 writes before it, but op 3 does not wait for "
                 "op 2 (directly or through other ops)");
  // Op 9 must come after ops 0, 4 and 8.
  auto deps = kRing3Deps;
  deps[9] = "[8]";  // op 8 waits for ops 0 and 4, so this still orders everything
  CHECK_NOTHROW(validation::parse_verified_schedule(ring3(deps), "t.json"));
  deps[8] = "[0]";  // now nothing orders op 9 after op 4, which reads rank 1's chunk 2
  check_rejected(ring3(deps), "/ops/8/deps: op 8 sends chunk 2 of rank 2, which op 4 writes before it");
}

TEST_CASE("structural errors name the JSON path, what was found and what was expected", "[schedule][json][errors]") {
  const std::string op = R"({"src": 0, "dst": 1, "chunk": 0, "combine": "reduce", "step": 1})";
  check_rejected(with_ops(R"({"src": 0, "dst": 3, "chunk": 0, "combine": "reduce", "step": 1})"),
                 "t.json: /ops/0/dst: found 3, expected a rank: a whole number from 0 to 2");
  check_rejected(
      with_ops(R"({"src": 0, "dst": 1, "chunks": 0, "combine": "reduce", "step": 1})"),
      "t.json: /ops/0/chunks: unknown key \"chunks\", expected one of: src, dst, chunk, src_chunk, dst_chunk, "
      "combine, step, channel, deps");
  check_rejected(with_ops(op, R"(, "steps": 4)"), "t.json: /steps: unknown key \"steps\"");
  check_rejected(with_ops(R"({"src": 0, "dst": 1, "chunk": 3, "combine": "reduce", "step": 1})"),
                 "/ops/0/chunk: found 3, expected a chunk index into /chunks: a whole number from 0 to 2");
  check_rejected(with_ops(R"({"src": 0, "dst": 1, "chunk": 0, "combine": "reduce", "step": 0})"),
                 "/ops/0/step: found 0, expected a step of at least 1 (steps are 1-based)");
  check_rejected(with_ops(R"({"src": 0, "dst": 1, "chunk": 0, "combine": "add", "step": 1})"),
                 "/ops/0/combine: found \"add\", expected \"reduce\"");
  check_rejected(with_ops(R"({"src": 0, "dst": 0, "chunk": 1, "combine": "copy", "step": 1})"),
                 "/ops/0: rank 0 combines chunk 1 with itself");
  check_rejected(with_ops(R"({"src": 0, "dst": 1, "combine": "copy", "step": 1})"),
                 "/ops/0: missing key \"chunk\" (or \"src_chunk\" and \"dst_chunk\")");
  check_rejected(with_ops(R"({"src": 0, "dst": 1, "chunk": 0, "src_chunk": 0, "combine": "copy", "step": 1})"),
                 "/ops/0/src_chunk: found both \"chunk\" and src_chunk/dst_chunk");
  check_rejected(with_ops(R"({"src": -1, "dst": 1, "chunk": 0, "combine": "copy", "step": 1})"),
                 "/ops/0/src: found -1, expected a rank");
  check_rejected(with_ops(R"({"src": 0.5, "dst": 1, "chunk": 0, "combine": "copy", "step": 1})"),
                 "/ops/0/src: found 0.5, expected a rank");
  check_rejected(with_ops(R"({"src": 0, "dst": 1, "chunk": 0, "combine": "copy", "step": 1, "channel": 70000})"),
                 "/ops/0/channel: found 70000, expected a channel: a whole number from 0 to 65535");
  // Chunks of different sizes: S = 5 cuts into 2, 2, 1 bytes.
  check_rejected(R"({"format": "collsim-schedule-1", "algorithm": "t", "collective": "allreduce", "ranks": 3,
                     "size_bytes": 5, "ops": [{"src": 0, "dst": 1, "src_chunk": 0, "dst_chunk": 2, "combine": "copy",
                     "step": 1}]})",
                 "/ops/0/dst_chunk: chunk 2 has 1 bytes but src_chunk 0 has 2, expected chunks of the same size");

  // The header.
  check_rejected(R"({"format": "collsim-schedule-1", "algorithm": "t", "collective": "allreduce", "ranks": "3",
                     "size_bytes": 3, "ops": []})",
                 "t.json: /ranks: found \"3\", expected a number of ranks: a whole number from 1 to 4294967295");
  check_rejected(R"({"format": "collsim-schedule-2", "algorithm": "t", "collective": "allreduce", "ranks": 3,
                     "size_bytes": 3, "ops": []})",
                 "/format: found \"collsim-schedule-2\", expected \"collsim-schedule-1\"");
  check_rejected(R"({"format": "collsim-schedule-1", "algorithm": "t", "collective": "allsum", "ranks": 3,
                     "size_bytes": 3, "ops": []})",
                 "/collective: found \"allsum\", expected one of: allreduce, reducescatter, allgather, broadcast, "
                 "reduce, alltoall");
  check_rejected(R"({"format": "collsim-schedule-1", "algorithm": "t", "collective": "allreduce", "ranks": 3,
                     "size_bytes": 3})",
                 "t.json: /: missing key \"ops\"");
  check_rejected(with_ops(op, R"(, "root": 1)"), "/root: found a root, but allreduce has none");
  check_rejected(R"([1, 2])", "t.json: /: found [1,2], expected a schedule object");
  check_rejected(with_ops(op, R"(, "chunks": [{"offset": 0, "size": 4}])"),
                 "/chunks/0/size: the chunk ends at byte 4, past size_bytes 3");
  check_rejected(with_ops(op, R"(, "chunks": [{"offset": 0, "size": 3, "buffer": "input"}])"),
                 "/chunks/0/buffer: found \"input\", expected \"data\", \"output\" or \"scratch\"");
  check_rejected(with_ops(op, R"(, "chunks": [{"offset": 0, "size": 3, "part": 3}])"),
                 "/chunks/0/part: found 3, expected a participant rank: a whole number from 0 to 2");
  check_rejected(with_ops(op, R"(, "phases": [{"name": "a", "first_step": 1, "last_step": 2},
                                              {"name": "b", "first_step": 2, "last_step": 3}])"),
                 "/phases/1/first_step: found 2, expected a step after the previous phase");
  // 2^24 + 1 buffer slots: the materialised-schedule limit.
  check_rejected(R"({"format": "collsim-schedule-1", "algorithm": "t", "collective": "allreduce", "ranks": 4097,
                     "size_bytes": 3, "ops": []})",
                 "/ranks: 4097 ranks x 4097 chunks is 16785409 buffer slots; expected at most 16777216");
}

TEST_CASE("invalid schedule JSON is reported with its line and column", "[schedule][json][errors]") {
  // Line 3 is `  "ranks": 3,,`: the second comma is its 14th character.
  check_rejected("{\n  \"format\": \"collsim-schedule-1\",\n  \"ranks\": 3,,\n}", "t.json:3:14: invalid JSON");
  check_rejected(R"({"format": "collsim-schedule-1", "format": "collsim-schedule-1"})",
                 "t.json: invalid JSON: key \"format\" appears twice in one object, expected it once");
  check_rejected(std::string(40, '[') + std::string(40, ']'), "t.json: invalid JSON: nested deeper than 32 levels");
  check_rejected(with_ops("", R"(, "description": 1e999)"), "t.json: invalid JSON");
  check_rejected("", "t.json:1:1: invalid JSON");
}

TEST_CASE("schedule files are read from disk, and missing ones are named", "[schedule][json]") {
  const auto path = std::filesystem::temp_directory_path() / "collsim_schedule_json_test_ring3.json";
  std::ofstream(path) << ring3();
  CHECK(validation::load_verified_schedule(path).ops.size() == 12);
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(sched::load_schedule_file(path),
                    Catch::Contains(path.string() + " cannot be read (No such file or directory); expected a schedule JSON file"));
  CHECK_THROWS_WITH(sched::load_schedule_file(std::filesystem::temp_directory_path()),
                    Catch::Contains(" is a directory; expected a schedule JSON file"));
}

TEST_CASE("the JSON Schema documents exactly the keys the reader accepts", "[schedule][json]") {
  std::ifstream in(std::string(COLLSIM_SOURCE_DIR) + "/sim/schedule/schedule.schema.json");
  REQUIRE(in);
  const auto schema = nlohmann::json::parse(in);
  const auto keys = [](const nlohmann::json& props) {
    std::set<std::string> out;
    for (const auto& [k, v] : props.items()) out.insert(k);
    return out;
  };
  // The lists in the reader's only_keys() calls.
  CHECK(keys(schema["properties"]) == std::set<std::string>{"$schema", "description", "format", "algorithm",
                                                            "collective", "ranks", "helpers", "root", "size_bytes",
                                                            "element_size_bytes", "chunks", "phases", "ops"});
  CHECK(keys(schema["properties"]["ops"]["items"]["properties"]) ==
        std::set<std::string>{"src", "dst", "chunk", "src_chunk", "dst_chunk", "combine", "step", "channel", "deps"});
  CHECK(keys(schema["properties"]["chunks"]["items"]["properties"]) ==
        std::set<std::string>{"offset", "size", "buffer", "part"});
  CHECK(keys(schema["properties"]["phases"]["items"]["properties"]) ==
        std::set<std::string>{"name", "first_step", "last_step"});
  CHECK(schema["properties"]["format"]["const"] == std::string(sched::kScheduleFormat));
  CHECK(schema["required"] == nlohmann::json({"format", "algorithm", "collective", "ranks", "size_bytes", "ops"}));
}
}  // namespace schedule_json_test
