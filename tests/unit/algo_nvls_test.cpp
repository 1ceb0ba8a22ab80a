// NVLS all-reduce (algorithms/nvls_allreduce.hpp), the switches that can run it
// (topologies/nvls.hpp) and NCCL's NVLS formula (sim/nccl_formula.hpp). Expected values are derived
// by hand from the data path in the header (each GPU sends S + P, the switch N·S + S) and from
// NCCL 2.30.7's src/graph/tuning.cc and src/transport/nvls.cc constants.
#include <catch2/catch.hpp>

#include <algorithm>

#include "algorithms/nvls_allreduce.hpp"
#include "algorithms/registry.hpp"
#include "sim/nccl_formula.hpp"
#include "topologies/gpu_models.hpp"
#include "topologies/load_json.hpp"
#include "topologies/nvls.hpp"
#include "validation/symbolic_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace algo_nvls_test {

using namespace collsim;

namespace {

algo::Request request(sched::Rank n, Bytes size, Bytes chunk = algo::kNvlsChunkSize) {
  algo::Request r{sched::Collective::AllReduce, n, size};
  r.chunk_size = chunk;
  return r;
}

// A switch with `n` GPUs of `model`, each by an NVSwitch link; `nvls` as the switch's key ("" = none).
std::string switch_json(int n, const std::string& model, const std::string& nvls, const std::string& type = "nvswitch") {
  std::string nodes, links;
  for (int i = 0; i < n; ++i) {
    nodes += "{\"id\": \"gpu" + std::to_string(i) + "\", \"type\": \"gpu\"" +
             (model.empty() ? "" : ", \"model\": \"" + model + "\"") + "},";
    links += std::string(i ? "," : "") + "{\"from\": \"gpu" + std::to_string(i) + "\", \"to\": \"sw\", \"type\": \"" +
             type + "\", \"bandwidth\": \"100GB/s\", \"latency\": \"1us\"}";
  }
  return "{\"name\": \"t\", \"nodes\": [" + nodes + "{\"id\": \"sw\", \"type\": \"switch\"" +
         (nvls.empty() ? "" : ", \"nvls\": " + nvls) + "}], \"links\": [" + links + "]}";
}

}  // namespace

TEST_CASE("nvls: every GPU sends and receives S + P, the switch N S + S, in C + 3 steps", "[algo][nvls]") {
  // N = 4, S = 4 KiB: P = 1 KiB, one chunk per part (C = 1).
  const auto s = algo::build_nvls_allreduce(request(4, 4096));
  CHECK(s.header.helpers == 1);
  CHECK(s.steps == 4);
  // Per part: 4 loads to the switch, 4 local adds, 1 sum to the owner, 1 store, 4 multicast copies.
  CHECK(s.ops.size() == 4 * (3 * 4 + 2));
  const auto sent = sched::bytes_sent_per_rank(s);
  const auto received = sched::bytes_received_per_rank(s);
  REQUIRE(sent.size() == 5);
  for (sched::Rank r = 0; r < 4; ++r) {
    CHECK(sent[r] == 4096 + 1024);
    CHECK(received[r] == 1024 + 4096);
  }
  CHECK(sent[4] == 4096 + 4 * 4096);
  CHECK(received[4] == 4 * 4096 + 4096);
  REQUIRE(s.phases.size() == 2);
  CHECK(s.phases[0].name == "reduce at the switch");
  CHECK(s.phases[1].name == "multicast");
  CHECK(s.phases[1].last_step == 4);
  CHECK_FALSE(validation::verify_symbolic(s));
}

TEST_CASE("nvls: pipelined parts take C + 3 steps and every phase, and still compute the sum", "[algo][nvls]") {
  // N = 4, S = 1 MiB: P = 256 KiB in C = 4 chunks of 64 KiB.
  const auto s = algo::build_nvls_allreduce(request(4, Bytes{1} << 20, Bytes{64} << 10));
  CHECK(s.steps == 7);
  REQUIRE(s.phases.size() == 3);
  CHECK(s.phases[1].name == "reduce + multicast");
  CHECK(s.phases[1].first_step == 3);
  CHECK(s.phases[1].last_step == 5);
  CHECK(s.phases[2].first_step == 6);
  CHECK(s.ops.size() == 4 * 4 * 14);
  CHECK_FALSE(validation::verify_symbolic(s));
  // One rank: nothing moves and no switch is needed.
  const auto one = algo::build_nvls_allreduce(request(1, 4096));
  CHECK(one.ops.empty());
  CHECK(one.header.helpers == 0);
  // Parts of different sizes (S = 10 elements on N = 4) and chunks that do not divide them.
  CHECK_FALSE(validation::verify_symbolic(algo::build_nvls_allreduce(request(4, 40, 8))));
  CHECK_THROWS_AS(algo::build_nvls_allreduce(request(4, 4096, 0)), std::invalid_argument);
}

TEST_CASE("NVLS architectures and constants follow NCCL 2.30.7", "[topology][nvls]") {
  // tuning.cc nvlsEfficiency: Hopper 0.85, Blackwell 0.74, none before; nvls.cc channels 16 / 24.
  CHECK(topo::gpu_arch("H100-SXM5-80GB") == topo::GpuArch::Hopper);
  CHECK(topo::gpu_arch("h200") == topo::GpuArch::Hopper);
  CHECK(topo::gpu_arch("B200") == topo::GpuArch::Blackwell);
  CHECK(topo::gpu_arch("GB200") == topo::GpuArch::Blackwell);
  CHECK(topo::gpu_arch("A100-SXM4-80GB") == topo::GpuArch::Ampere);
  CHECK_FALSE(topo::gpu_arch("RTX 9999"));
  CHECK(topo::nvls_efficiency(topo::GpuArch::Hopper) == 0.85);
  CHECK(topo::nvls_efficiency(topo::GpuArch::Blackwell) == 0.74);
  CHECK_FALSE(topo::nvls_efficiency(topo::GpuArch::Ampere));
  CHECK(topo::nvls_channels(topo::GpuArch::Hopper) == 16);
  CHECK(topo::nvls_channels(topo::GpuArch::Blackwell) == 24);
}

TEST_CASE("which switch reduces: NVSwitch of NVLS GPUs unless \"nvls\": false, any switch with true",
          "[topology][nvls]") {
  const auto domain = [](const std::string& json, std::string* why = nullptr) {
    const auto t = topo::parse_topology_json(json, "t.json", "t");
    return topo::nvls_domain(t, t.gpus(), why);
  };
  const auto b200 = domain(switch_json(4, "B200", ""));
  REQUIRE(b200);
  CHECK(b200->efficiency == 0.74);
  CHECK(b200->channels == 24);
  std::string why;
  CHECK_FALSE(domain(switch_json(4, "H100", "false"), &why));
  CHECK(why == "switch sw says \"nvls\": false");
  CHECK_FALSE(domain(switch_json(4, "A100-SXM4-80GB", ""), &why));
  CHECK(why.find("gpu0 (A100-SXM4-80GB) has no NVLink SHARP") != std::string::npos);
  CHECK_FALSE(domain(switch_json(4, "", ""), &why));
  CHECK(why.find("gpu0 gives no model") != std::string::npos);
  CHECK_FALSE(domain(switch_json(4, "H100", "", "pcie"), &why));
  CHECK(why.find("not linked to the GPUs by nvswitch links") != std::string::npos);
  // Said so: any switch reduces, at the line rate when the GPUs' constants are unknown.
  const auto forced = domain(switch_json(4, "", "true", "pcie"));
  REQUIRE(forced);
  CHECK(forced->efficiency == 1.0);
  CHECK(forced->channels == 16);
  // The key belongs on switches, and must be a boolean.
  CHECK_THROWS_WITH(topo::parse_topology_json(
                        R"({"name": "t", "nodes": [{"id": "g", "type": "gpu", "nvls": true}], "links": []})", "t.json", "t"),
                    Catch::Contains("/nodes/0/nvls") && Catch::Contains("expected the key on a switch node"));
  CHECK_THROWS_WITH(topo::parse_topology_json(switch_json(2, "H100", "\"yes\""), "t.json", "t"),
                    Catch::Contains("/nodes/2/nvls") && Catch::Contains("expected true or false"));
}

TEST_CASE("NCCL's NVLS formula: 25 us and 2 B e (C-1)/C busbw, all-reduce on one node with Simple", "[nccl][nvls]") {
  sim::NcclFormulaInput in;
  in.family = topo::AlgoFamily::Nvls;
  in.protocol = topo::Protocol::Simple;
  in.ranks = 8;
  in.channels = 24;
  in.size = Bytes{1} << 30;
  in.bus_bandwidth = Bandwidth{static_cast<std::uint64_t>(721.8e9 * 8)};  // B200: 900 GB/s x 0.802
  in.nvls_efficiency = 0.74;
  const topo::ModelParams none;
  // 721.8 x 0.74 x 23/24 x 2 = 1023.753 GB/s busbw; x 8/14 = 585.0017 GB/s algbw;
  // 25 us + 1073741824 B / (1000 x 585.0017) = 1860.44 us.
  REQUIRE(sim::nccl_formula_time(in, none));
  CHECK(static_cast<double>(sim::nccl_formula_time(in, none)->count()) == Approx(1860.44e6).epsilon(1e-5));
  in.protocol = topo::Protocol::LL;
  CHECK_FALSE(sim::nccl_formula_time(in, none));
  CHECK(sim::nccl_pick_protocol(in, none, true) == topo::Protocol::Simple);
  in.protocol = topo::Protocol::Simple;
  in.nodes = 2;
  CHECK_FALSE(sim::nccl_formula_time(in, none));
  in.nodes = 1;
  in.nvls_efficiency = 0;
  CHECK_FALSE(sim::nccl_formula_time(in, none));
  in.nvls_efficiency = 0.74;
  in.collective = sched::Collective::AllGather;
  CHECK_FALSE(sim::nccl_formula_time(in, none));
}
}  // namespace algo_nvls_test
