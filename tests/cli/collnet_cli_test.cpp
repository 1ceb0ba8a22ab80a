// CollNet from the command line: a 2 x 8 H100 topology whose InfiniBand switch says "sharp": true,
// the bytes on NVLink and on each NIC (derived by hand from its data path), and the refusals.
#include <catch2/catch.hpp>

#include <fstream>

#include "tests/cli/cli_harness.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace collnet_cli_test {

using namespace collsim::testing;

namespace {

constexpr double kGiB = 1073741824.0;

// dgx-h100-2node-ib400 as `topo --format json` writes it, with "sharp": true on its leaf switch.
std::string sharp_topology() {
  const auto r = run_collsim({"topo", "dgx-h100-2node-ib400", "--format", "json"});
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(r.out);
  for (auto& n : j["nodes"])
    if (n["id"] == "ib-leaf") n["sharp"] = true;
  j["name"] = "h100-2node-sharp";
  return temp_file("h100-2node-sharp.json", j.dump());
}

}  // namespace

TEST_CASE("collnet on 2 x 8 H100 with SHARP: 7/4 S on NVLink, S/8 each way per NIC", "[cli][collnet]") {
  const std::string file = sharp_topology();
  const auto j = simulate_json({file, "--algorithm", "collnet", "--size", "1G", "--verify"});
  CHECK(j["verified"] == true);
  CHECK(j["protocol"] == "simple");
  // Each GPU sends its 7 other parts' shares to their heads and its part to 7 peers: 7/4 S.
  CHECK(link_named(j, "n0-gpu3", "n0-nvswitch")["bytes"].get<double>() == Approx(kGiB * 7 / 4).epsilon(1e-6));
  // Its head role: its part P = S/8 to the switch and the total back, through its own NIC.
  CHECK(link_named(j, "n1-gpu5", "n1-nic5")["bytes"].get<double>() == Approx(kGiB / 8).epsilon(1e-6));
  CHECK(link_named(j, "n1-nic5", "n1-gpu5")["bytes"].get<double>() == Approx(kGiB / 8).epsilon(1e-6));
  // NVLink bounds it: 7/4 GiB at 450 GB/s x 0.824 = 370.8 GB/s is 5.0675 ms (the NICs' S/8 at 47 GB/s
  // take 2.86 ms); latencies and the pipeline's fill add at most 0.2 ms.
  const double t = j["time_ps"].get<double>() * 1e-9;
  CHECK(t >= 5.0675);
  CHECK(t <= 5.0675 + 0.2);
  // The topology file keeps its key through `topo --format json`.
  const auto again = run_collsim({"topo", file, "--format", "json"});
  CHECK(again.out.find("\"sharp\": true") != std::string::npos);
}

TEST_CASE("collnet is refused without a switch that says sharp and with LL and left out of NCCL's choice",
          "[cli][collnet]") {
  check_bad_input({"simulate", "dgx-h100-2node-ib400", "--algorithm", "collnet", "--size", "1M"},
                  "--algorithm: CollNet needs a network switch that reduces for the hosts, and no switch of topology "
                  "dgx-h100-2node-ib400 says \"sharp\": true");
  check_bad_input({"simulate", sharp_topology(), "--algorithm", "collnet", "--protocol", "ll", "--size", "1M"},
                  "--protocol: NCCL runs NVLS, NVLSTree, PAT and CollNet with its simple protocol only");
  check_bad_input({"simulate", "dgx-h100-2node-ib400", "--algorithm", "nccl", "--nccl-algo", "collnetdirect", "--size",
                   "1M"},
                  "--nccl-algo: collnetdirect is one of NCCL's CollNet algorithms, which NCCL weighs only with "
                  "NCCL_COLLNET_ENABLE=1");
  const auto choice = simulate_json({sharp_topology(), "--algorithm", "nccl", "--size", "1G"});
  CHECK(choice["algorithm"] != "collnet");
}

TEST_CASE("collnet reduces at the network's switch even where a host's NVSwitch says sharp", "[cli][collnet]") {
  // A newcomer's case: "sharp" on n0-nvswitch too. The hosts' traffic meets at ib-leaf only; using
  // node0's NVSwitch would carry node1's sums into node0 (25.7 ms where 5.18 is right).
  const auto r = run_collsim({"topo", "dgx-h100-2node-ib400", "--format", "json"});
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(r.out);
  for (auto& n : j["nodes"])
    if (n["id"] == "ib-leaf" || n["id"] == "n0-nvswitch") n["sharp"] = true;
  const std::string both = temp_file("two-sharp.json", j.dump());
  const auto s = simulate_json({both, "--algorithm", "collnet", "--size", "1G"});
  CHECK(s["time_ps"].get<double>() * 1e-9 < 5.0675 + 0.2);
  CHECK(link_named(s, "n0-nic3", "ib-leaf")["bytes"].get<double>() == Approx(kGiB / 8).epsilon(1e-6));
  for (auto& n : j["nodes"])
    if (n["id"] == "ib-leaf") n.erase("sharp");
  check_bad_input({"simulate", temp_file("host-sharp.json", j.dump()), "--algorithm", "collnet", "--size", "1M"},
                  "no switch that says \"sharp\": true lies on the routes between the hosts");
}
}  // namespace collnet_cli_test
