// collsim train from the command line: its help names the modes, its formats agree with each other,
// lists give one case each, the timeline file, and bad input gets one line naming the flag.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_harness.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace train_cli_test {

using namespace collsim::testing;

namespace {

const std::vector<std::string> kSmall{"train", "--gpus", "4", "--fabric", "switch", "--parameters", "4096000",
                                      "--layers", "4", "--algorithm", "ring"};

std::vector<std::string> with(std::vector<std::string> args, std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
  return args;
}

}  // namespace

TEST_CASE("train --help lists the modes ddp and fsdp", "[cli][train]") {
  const CliRun r = run_collsim({"train", "--help"});
  CHECK(r.code == 0);
  CHECK(r.out.find("ddp") != std::string::npos);
  CHECK(r.out.find("fsdp") != std::string::npos);
  CHECK(r.out.find("--bucket-cap") != std::string::npos);
}

TEST_CASE("train: table, JSON and CSV tell the same step", "[cli][train]") {
  const CliRun json = run_collsim(with(kSmall, {"--backward-time", "10ms", "--format", "json"}));
  REQUIRE(json.code == 0);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j["mode"] == "ddp");
  CHECK(j["parameters"] == 4096000);
  REQUIRE(j["cases"].size() == 1);
  const auto& c = j["cases"][0];
  // 4 layers of 4,096,000 bytes (float32): bucket 0 takes the last layer (>= 1 MiB), bucket 1 the
  // other three (12,288,000 < 25 MiB): DDP's rules, as in tests/unit/train_test.cpp.
  REQUIRE(c["collectives"].size() == 2);
  CHECK(c["collectives"][0]["bytes"] == 4096000);
  CHECK(c["collectives"][1]["bytes"] == 12288000);
  CHECK(c["compute_us"] == "10000");
  const CliRun csv = run_collsim(with(kSmall, {"--backward-time", "10ms", "--format", "csv"}));
  REQUIRE(csv.code == 0);
  CHECK(csv.out.find(c["step_us"].get<std::string>()) != std::string::npos);
  const CliRun table = run_collsim(with(kSmall, {"--backward-time", "10ms"}));
  REQUIRE(table.code == 0);
  CHECK(table.out.find("allreduce bucket1") != std::string::npos);
  CHECK(table.out.find("exposed communication") != std::string::npos);
}

TEST_CASE("train: the setup line counts one layer and one tensor in the singular", "[cli][train]") {
  // --parameters 1000 with the default of one layer: one layer of one tensor (docs/training.md).
  const CliRun one = run_collsim({"train", "--gpus", "4", "--fabric", "switch", "--parameters", "1000", "--algorithm", "ring"});
  REQUIRE(one.code == 0);
  CHECK(one.out.find("(1000 parameters in 1 layer, 1 tensor, float32)") != std::string::npos);
  // One parameter: the model's name, the count and the one bucket's collective, all singular.
  const CliRun single = run_collsim({"train", "--gpus", "2", "--fabric", "switch", "--parameters", "1", "--algorithm", "ring"});
  REQUIRE(single.code == 0);
  CHECK(single.out.find("DDP step of 1 parameter (1 parameter in 1 layer, 1 tensor, float32)") != std::string::npos);
  CHECK(single.out.find(" in 1 collective\n") != std::string::npos);
  const CliRun four = run_collsim(kSmall);
  REQUIRE(four.code == 0);
  CHECK(four.out.find("(4096000 parameters in 4 layers, 4 tensors, float32)") != std::string::npos);
}

TEST_CASE("train: lists of ranks and bucket caps give one case each", "[cli][train]") {
  const CliRun r = run_collsim(with(kSmall, {"--ranks", "2,4", "--bucket-cap", "1M,25M", "--format", "csv"}));
  REQUIRE(r.code == 0);
  std::size_t lines = 0;
  for (char ch : r.out) lines += ch == '\n';
  CHECK(lines == 5);  // header and 2 x 2 cases
  CHECK(r.out.starts_with("mode,model,parameters,"));
  const CliRun table = run_collsim(with(kSmall, {"--ranks", "2,4", "--bucket-cap", "1M,25M"}));
  REQUIRE(table.code == 0);
  CHECK(table.out.find("bucket cap") != std::string::npos);
}

TEST_CASE("train --trace writes the step's timeline", "[cli][train]") {
  const auto dir = scratch_dir("train_trace");
  const auto path = (dir / "step.json").string();
  const CliRun r = run_collsim(with(kSmall, {"--mode", "fsdp", "--forward-time", "4ms", "--backward-time", "8ms", "--trace", path}));
  REQUIRE(r.code == 0);
  const auto t = nlohmann::json::parse(read_file(path));
  std::size_t compute = 0, comm = 0;
  for (const auto& e : t["traceEvents"])
    if (e["ph"] == "X") (e["tid"] == 0 ? compute : comm) += 1;
  CHECK(compute == 8);  // forward and backward of 4 units
  CHECK(comm == 12);    // 2 all-gathers and a reduce-scatter per unit
  check_bad_input(with(kSmall, {"--ranks", "2,4", "--trace", path}), "--trace: found 2 cases");
}

TEST_CASE("train: bad input names the flag", "[cli][train]") {
  check_bad_input({"train", "--gpus", "4", "--fabric", "switch"}, "--preset, --tensors or --parameters: none given");
  check_bad_input(with(kSmall, {"--mode", "zero"}), "--mode: found \"zero\", expected ddp or fsdp");
  check_bad_input(with(kSmall, {"--mode", "fsdp", "--bucket-cap", "1M"}), "--bucket-cap: DDP's gradient buckets");
  check_bad_input(with(kSmall, {"--ranks", "8"}), "--ranks: found 8, but topology");
  check_bad_input(with(kSmall, {"--backward-time", "10"}), "--backward-time");
  check_bad_input({"train", "--preset", "gpt5"}, "--preset: found \"gpt5\", expected resnet50");
  const auto bad = temp_file("train_bad_model.json", R"({"layers": [{"tensors": [0]}]})");
  check_bad_input({"train", "--tensors", bad}, "/layers/0/tensors/0: found 0");
  check_bad_input(with(kSmall, {"--format", "xml"}), "--format: found \"xml\"");
  check_bad_input(with(kSmall, {"--forward-time", "9000000s", "--backward-time", "9000000s"}),
                  "--forward-time and --backward-time: the step passes the simulated clock's end");
  check_bad_input({"train", "--gpus", "4", "--fabric", "switch", "--link-bandwidth", "1B/s", "--parameters", "100000000000",
                   "--algorithm", "ring"},
                  "the step's allreduce of 400000000000 bytes on 4 ranks: ");
  check_bad_input({"train", "--parameters", "10000000", "--layers", "2000000"}, "--layers: found \"2000000\"");
  check_bad_input({"train", "--tensors", temp_file("train_name.json", R"({"name": 5, "layers": [{"tensors": [1]}]})")},
                  "/name: found 5, expected a string");
  // Sizes past 2^64 bytes are bad input, not an internal error.
  check_bad_input({"train", "--parameters", "18446744073709551615"}, "--parameters: 18446744073709551615 elements of 4 bytes");
  const auto huge = temp_file("train_huge_model.json", "[18446744073709551615, 1]");
  check_bad_input({"train", "--tensors", huge}, "the element counts sum past 2^64 - 1");
  check_bad_input({"train", "--parameters", "10", "--layers", "20"}, "--layers: found 20, expected 1 to 10");
  // A device that never ends is refused after 64 MiB (it once read 2 GB before failing).
  check_bad_input({"train", "--tensors", "/dev/zero"}, "--tensors: /dev/zero holds more than 67108864 bytes; expected a model file");
}
}  // namespace train_cli_test
