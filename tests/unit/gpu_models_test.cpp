// The GPU models collsim knows by name (topologies/gpu_models.hpp) and the loader's refusal of a
// GPU model it does not know. Expected bandwidths are the datasheets' (NVIDIA H100 PCIe product
// brief: 2.0 TB/s; H100 SXM5: 3.35 TB/s; GeForce RTX 4090: 1,008 GB/s; A100 80GB SXM: 2,039 GB/s).
#include <catch2/catch.hpp>

#include "topologies/gpu_models.hpp"
#include "topologies/load_json.hpp"
#include "topologies/topology.hpp"

namespace gpu_models_test {
namespace {

using Catch::Contains;
using collsim::topo::gpu_arch;
using collsim::topo::gpu_memory_bandwidth;
using collsim::topo::GpuArch;
using collsim::topo::known_gpu_model;

std::uint64_t bytes_per_s(std::string_view model) { return gpu_memory_bandwidth(model).value().bits_per_s / 8; }

TEST_CASE("GPU models match by prefix, any case, spaces as dashes, nvidia-smi's vendor word skipped", "[gpu-models]") {
  // "H100 PCIe" (the bundled h100-pcie-nvlbridge spells it so) once matched "h100", the SXM part.
  CHECK(bytes_per_s("H100 PCIe") == 2'000'000'000'000);
  CHECK(bytes_per_s("h100_pcie") == 2'000'000'000'000);
  CHECK(bytes_per_s("H100-SXM5-80GB") == 3'350'000'000'000);
  // nvidia-smi --query-gpu=name spellings.
  CHECK(bytes_per_s("NVIDIA H100 80GB HBM3") == 3'350'000'000'000);
  CHECK(bytes_per_s("NVIDIA GeForce RTX 4090") == 1'008'000'000'000);
  CHECK(bytes_per_s("NVIDIA A100-SXM4-80GB") == 2'039'000'000'000);
  CHECK(gpu_arch("nvidia b200") == GpuArch::Blackwell);
  CHECK_FALSE(known_gpu_model("MI300X"));
  CHECK_FALSE(known_gpu_model("NVIDIA"));
  CHECK_FALSE(gpu_memory_bandwidth("H10O").has_value());
  CHECK_THAT(collsim::topo::known_gpu_model_names(), Contains("A100, ") && Contains("V100"));
}

std::string two_gpus(const std::string& model_a, const std::string& model_switch) {
  return R"({"name": "t", "description": "d", "nodes": [
      {"id": "a", "type": "gpu", "model": ")" + model_a + R"("},
      {"id": "b", "type": "gpu"},
      {"id": "s", "type": "switch", "model": ")" + model_switch + R"("}],
    "links": [{"from": "a", "to": "s", "type": "nvlink", "bandwidth": "100GB/s", "latency": "1us"},
              {"from": "b", "to": "s", "type": "nvlink", "bandwidth": "100GB/s", "latency": "1us"}]})";
}

TEST_CASE("a GPU model collsim does not know is refused with its JSON path and other nodes' models are free text",
          "[gpu-models][topology]") {
  using collsim::topo::parse_topology_json;
  CHECK_THROWS_WITH(parse_topology_json(two_gpus("H10O", "NVSwitch"), "t.json", "t"),
                    Contains("t.json") && Contains("/nodes/0/model") &&
                        Contains("found \"H10O\"") && Contains("no \"model\" key"));
  const auto t = parse_topology_json(two_gpus("NVIDIA H100 80GB HBM3", "Quantum-2 QM9700"), "t.json", "t");
  CHECK(t.node(0).model == "NVIDIA H100 80GB HBM3");
  // Its default reduce rate is a third of the memory bandwidth (gpu_models.hpp), known by that name.
  CHECK(collsim::topo::default_reduce_bandwidth(t.node(0).model).value().bits_per_s == 3'350'000'000'000ull * 8 / 3);
}

}  // namespace
}  // namespace gpu_models_test
