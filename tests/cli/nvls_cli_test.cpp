// NVLS all-reduce from the command line: its time on the bundled NVLS machines against the time
// derived by hand from its data path, the per-link bytes, its protocol and channels as NCCL 2.30.7
// sets them, explain, and the one-line refusals.
#include <catch2/catch.hpp>

#include <cstdint>

#include "tests/cli/cli_harness.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace nvls_cli_test {

using namespace collsim::testing;

namespace {

constexpr double kGiB = 1073741824.0;

}  // namespace

TEST_CASE("nvls on dgx-b200: S + S/8 each way per GPU at NVLink x 0.802 x NCCL's 0.74, plus 25 us",
          "[cli][nvls]") {
  const auto j = simulate_json({"dgx-b200", "--algorithm", "nvls", "--size", "1G"});
  CHECK(j["protocol"] == "simple");
  CHECK(j["channels"] == 24);  // NVLS_NCHANNELS_SM100_NVL
  // Each GPU's link carries S + P = 9/8 GiB each way.
  const double each_way = kGiB * 9 / 8;
  CHECK(link_named(j, "gpu0", "nvswitch")["bytes"].get<double>() == Approx(each_way).epsilon(1e-6));
  CHECK(link_named(j, "nvswitch", "gpu5")["bytes"].get<double>() == Approx(each_way).epsilon(1e-6));
  CHECK(j["bytes_sent_per_rank_max"].get<double>() == Approx(each_way).epsilon(1e-6));
  // At 900 GB/s x 0.802 (NCCL's NVLink5 rate, dgx-b200) x 0.74 (nvlsEfficiency, Blackwell) =
  // 534.132 GB/s that is 2.26152 ms; with NCCL's 25 us NVLS latency, 2.28652 ms. The pipeline's
  // fill and drain (one 128 KiB chunk of every part on every channel up before any comes down,
  // 24 MiB = 47 us each way) add at most 0.1 ms.
  const double t = j["time_ps"].get<double>() * 1e-9;  // ms
  CHECK(t >= 2.28652);
  CHECK(t <= 2.28652 + 0.1);
  CHECK(j["lower_bound_us"].is_null());  // a switch that reduces beats the GPUs' bound
  // Faster than the ring on the same machine: 2(N-1)/N S = 7/4 GiB each way at 721.8 GB/s >= 2.6 ms.
  const auto ring = simulate_json({"dgx-b200", "--size", "1G"});
  CHECK(ring["time_ps"].get<double>() * 1e-9 > 2.6);
}

TEST_CASE("nvls on dgx-h100: Hopper's 16 channels and 0.85", "[cli][nvls]") {
  const auto j = simulate_json({"dgx-h100", "--algorithm", "nvls", "--size", "1G"});
  CHECK(j["channels"] == 16);  // NVLS_NCHANNELS_SM90
  // 9/8 GiB at 450 GB/s x the link efficiency of dgx-h100 x 0.85: read the efficiency back from
  // the busy time of the bottleneck link, which NVLS keeps busy but for the fill and drain.
  const auto& up = link_named(j, "gpu0", "nvswitch");
  CHECK(up["bytes"].get<double>() == Approx(kGiB * 9 / 8).epsilon(1e-6));
  CHECK(j["time_ps"].get<double>() >= up["busy_us"].get<double>() * 1e6);
}

TEST_CASE("nvls: explain shows the switch reducing and multicasting", "[cli][nvls]") {
  const auto r = run_collsim({"explain", "--algorithm", "nvls", "--ranks", "2", "--elements", "2"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("reduce at the switch step 1 (step 1 of 4)") != std::string::npos);
  CHECK(r.out.find("switch locally: B0 from chunk 3 added into chunk 0") != std::string::npos);
  CHECK(r.out.find("switch -> GPU0: A0+B0 (copied to chunk 0)") != std::string::npos);
  CHECK(r.out.find("multicast step 2 (step 4 of 4)") != std::string::npos);
  CHECK(r.out.find("switch -> GPU1: A0+B0 (copied to chunk 0)") != std::string::npos);
  CHECK(r.out.find("elements sent per GPU: GPU0 3 GPU1 3 switch 6") != std::string::npos);
  CHECK(r.out.find("check: every GPU holds") != std::string::npos);
}

TEST_CASE("nvls is refused where no switch reduces and with LL protocols", "[cli][nvls]") {
  check_bad_input({"simulate", "dgx-a100", "--algorithm", "nvls", "--size", "1M"}, "gpu0 (A100-SXM4-80GB) has no NVLink SHARP");
  check_bad_input({"simulate", "--gpus", "4", "--fabric", "switch", "--algorithm", "nvls", "--size", "1M"}, "gpu0 gives no model");
  check_bad_input({"simulate", "dgx-h100-2node-ib400", "--algorithm", "nvls", "--size", "1M"},
                  "NVLS needs one switch that reduces for all 16 ranks");
  check_bad_input({"simulate", "dgx-h100", "--algorithm", "nvls", "--protocol", "ll", "--size", "1M"},
                  "--protocol: NCCL runs NVLS, NVLSTree, PAT and CollNet with its simple protocol only");
  const auto off = temp_file("nvls-off.json", R"({"name": "off", "nodes": [
      {"id": "g0", "type": "gpu", "model": "H100"}, {"id": "g1", "type": "gpu", "model": "H100"},
      {"id": "sw", "type": "switch", "nvls": false}],
    "links": [{"from": "g0", "to": "sw", "type": "nvswitch", "bandwidth": "450GB/s", "latency": "300ns"},
              {"from": "g1", "to": "sw", "type": "nvswitch", "bandwidth": "450GB/s", "latency": "300ns"}]})");
  check_bad_input({"simulate", off, "--algorithm", "nvls", "--size", "1M"}, "switch sw says \"nvls\": false");
}

TEST_CASE("nvls on a switch that says so: the ideal model's pipeline at the line rate", "[cli][nvls]") {
  // 2 GPUs at 100 GB/s, 1 us per link, S = 1 MiB in chunks of 64 KiB on one channel: P = 512 KiB,
  // C = 8 chunks per part, C + 3 = 11 steps. No protocol, efficiency 1: each GPU's up link carries
  // S + P = 1.5 MiB, 15.73 us, which bounds the time below; above, the pipeline adds its fill and
  // drain: the four hops of a round (4 latencies) and at most 4 x 2 chunk times (1.31 us each).
  const auto on = temp_file("nvls-on.json", R"({"name": "on", "nodes": [
      {"id": "g0", "type": "gpu"}, {"id": "g1", "type": "gpu"}, {"id": "sw", "type": "switch", "nvls": true}],
    "links": [{"from": "g0", "to": "sw", "type": "nvlink", "bandwidth": "100GB/s", "latency": "1us"},
              {"from": "g1", "to": "sw", "type": "nvlink", "bandwidth": "100GB/s", "latency": "1us"}]})");
  const auto j = simulate_json({on, "--algorithm", "nvls", "--size", "1M", "--chunk-size", "64K", "--channels", "1"});
  CHECK(j["protocol"] == "none");
  CHECK(j["steps"] == 11);
  const double t = j["time_ps"].get<double>() * 1e-6;  // us
  CHECK(t >= 1.5 * 1048576 / 100e3);
  CHECK(t <= 1.5 * 1048576 / 100e3 + 4 * 1.0 + 4 * 65536 / 100e3 * 2);
}
}  // namespace nvls_cli_test
