// sendrecv from the command line: simulate on one node and across two (one GPU pair per host
// boundary, so one NIC carries it), NCCL's send/recv protocol rule, and compare of a sendrecv_perf
// log. Expected values by hand from the data path and NCCL 2.30.7's src/enqueue.cc.
#include <catch2/catch.hpp>

#include "tests/cli/cli_harness.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace sendrecv_cli_test {

using namespace collsim::testing;

TEST_CASE("sendrecv across two hosts: the boundary pairs cross one NIC each", "[cli][sendrecv]") {
  const auto j = simulate_json({"dgx-h100-2node-ib400", "--collective", "sendrecv", "--size", "1G", "--verify"});
  CHECK(j["verified"] == true);
  CHECK(j["algorithm"] == "ring");
  CHECK(j["busbw_GBps"].get<double>() == Approx(j["algbw_GBps"].get<double>()));  // nccl-tests' factor 1
  // Rank 7 -> 8 and 15 -> 0 cross the hosts, each through its GPU's NIC: S at 50 x 0.94 = 47 GB/s
  // is 22.85 ms; the other pairs move S over NVLink in 2.9 ms, hidden behind it.
  CHECK(link_named(j, "n0-gpu7", "n0-nic7")["bytes"].get<double>() == 1073741824.0);
  CHECK(link_named(j, "n1-gpu7", "n1-nic7")["bytes"].get<double>() == 1073741824.0);
  const double t = j["time_ps"].get<double>() * 1e-9;
  CHECK(t >= 1073741824.0 / 47e9 * 1e3);
  CHECK(t <= 1073741824.0 / 47e9 * 1e3 + 0.1);
}

TEST_CASE("sendrecv's protocol is NCCL's send/recv rule: LL up to 16 KiB a channel", "[cli][sendrecv]") {
  // dgx-a100 runs 24 channels: LL up to 24 x 16 KiB = 384 KiB (src/enqueue.cc, NCCL_P2P_LL_THRESHOLD).
  const auto small = simulate_json({"dgx-a100", "--collective", "sendrecv", "--size", "384K"});
  CHECK(small["protocol"] == "ll");
  CHECK(small["protocol_source"].get<std::string>().find("NCCL's send/recv rule") != std::string::npos);
  const auto large = simulate_json({"dgx-a100", "--collective", "sendrecv", "--size", "385K"});
  CHECK(large["protocol"] == "simple");
  // All-to-all is grouped send/recv too: its blocks of S/N per peer on its one channel.
  CHECK(simulate_json({"dgx-a100", "--collective", "alltoall", "--algorithm", "direct", "--size", "128K"})["protocol"] ==
        "ll");
  CHECK(simulate_json({"dgx-a100", "--collective", "alltoall", "--algorithm", "direct", "--size", "129K"})["protocol"] ==
        "simple");
  const auto choice = simulate_json({"dgx-a100", "--collective", "sendrecv", "--algorithm", "nccl", "--size", "1M"});
  CHECK(choice["algorithm_choice"] == "NCCL runs sendrecv as grouped send/recv, with no algorithm to choose "
                                     "(nccl-tests src/sendrecv.cu)");
}

TEST_CASE("compare reads and predicts a sendrecv_perf log", "[cli][sendrecv][compare]") {
  const std::string log = temp_file(
      "sendrecv_ok.txt",
      "# Collective test starting: sendrecv_perf\n"
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "           8             2     float     sum      -1    12.00    0.00    0.00      0    11.00    0.00    0.00      0\n"
      "  1073741824     268435456     float     sum      -1   4500.0  238.61  238.61      0   4500.0  238.61  238.61      0\n"
      "# Avg bus bandwidth    : 119.3\n");
  const auto r = run_collsim({"compare", log, "dgx-a100", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["collective"] == "sendrecv");
  REQUIRE(j["rows"].size() == 2);
  // 1 GiB one way per GPU at dgx-a100's 240 GB/s (NVLink at NCCL's 20 of 25 GB/s a link): 4.47 ms.
  const auto& big = j["rows"][1];
  CHECK(big["predicted_us"].get<double>() == Approx(4474.0).epsilon(0.01));
  CHECK(big["predicted_busbw_GBps"].get<double>() == Approx(big["predicted_algbw_GBps"].get<double>()));
}

TEST_CASE("sendrecv refuses LL128, which NCCL's send/recv never runs", "[cli][sendrecv]") {
  check_bad_input({"simulate", "dgx-h100", "--collective", "sendrecv", "--size", "1M", "--protocol", "ll128"},
                  "--protocol: NCCL runs send/recv with LL or simple (src/enqueue.cc), but --protocol gave ll128");
}
}  // namespace sendrecv_cli_test
