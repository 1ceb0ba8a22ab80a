// The CPU-testable parts of the CUDA validation mode (issue 6): the schedule-to-stream lowering,
// the `nvidia-smi topo -m` parser and the topologies it gives, and validate / topo --detect's
// flag checks and their "no GPU" exit. The GPU parts are ctest entries (tests/CMakeLists.txt)
// that report skipped where there is no GPU.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>

#include "algorithms/registry.hpp"
#include "tests/cli/cli_harness.hpp"
#include "topologies/load_json.hpp"
#include "topologies/transport.hpp"
#include "validation/cuda/gpu_runtime.hpp"
#include "validation/cuda/lower_schedule.hpp"
#include "validation/cuda/nvidia_smi_topo.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace cuda_validation_test {

namespace {

using namespace collsim;

sched::Schedule build(sched::Collective c, std::string_view algorithm, sched::Rank n, Bytes size) {
  const auto registry = algo::builtin_registry();
  algo::Request req{c, n, size};
  req.element_size = 4;
  return registry.find(c, algorithm).build(req);
}

// Every dependency of the schedule holds in the plan: the dep runs earlier on the same stream, or
// the op waits on an event recorded on the dep's stream by the dep or by an op issued after it there.
void check_deps_kept(const sched::Schedule& s, const cuda::StreamPlan& plan) {
  std::vector<std::uint32_t> position(plan.ops.size());
  std::map<std::uint32_t, std::uint32_t> recorder;  // event -> op
  for (const auto& st : plan.streams)
    for (std::size_t k = 0; k < st.ops.size(); ++k) position[st.ops[k]] = static_cast<std::uint32_t>(k);
  for (const auto& op : plan.ops)
    if (op.record != cuda::kNoEvent) recorder[op.record] = op.op;
  for (sched::OpId i = 0; i < s.ops.size(); ++i) {
    const auto& op = plan.ops[i];
    std::map<std::uint32_t, int> waits_per_stream;
    for (const auto e : op.waits) {
      REQUIRE(recorder.count(e) == 1);
      REQUIRE(recorder[e] < i);  // recorded before it is waited on: issue order is schedule order
      ++waits_per_stream[plan.ops[recorder[e]].stream];
    }
    for (const auto& [stream, n] : waits_per_stream) CHECK(n == 1);  // one wait per other stream at most
    for (const auto d : s.deps_of(i)) {
      const auto ds = plan.ops[d].stream;
      if (ds == op.stream) {
        CHECK(position[d] < position[i]);
        continue;
      }
      const bool covered = std::any_of(op.waits.begin(), op.waits.end(), [&](std::uint32_t e) {
        const auto by = recorder[e];
        return plan.ops[by].stream == ds && position[by] >= position[d];
      });
      CHECK(covered);
    }
  }
}

std::string data_file(const std::string& name) {
  std::ifstream in(std::string(COLLSIM_SOURCE_DIR) + "/tests/data/nvidia-smi/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  REQUIRE(!ss.str().empty());
  return ss.str();
}

topo::Topology topology_of(const std::string& file, std::uint64_t nvlink_rate = 25'000'000'000) {
  cuda::LinkSpeeds speeds;
  speeds.nvlink_bytes_per_s = nvlink_rate;
  return topo::parse_topology_json(cuda::smi_topology_json(cuda::parse_nvidia_smi_topo(data_file(file)), speeds, "t", ""),
                                   file, "t");
}

std::size_t count_links(const topo::Topology& t, topo::LinkType type) {
  // Each file link is two directed links.
  return static_cast<std::size_t>(std::count_if(t.links().begin(), t.links().end(),
                                                [&](const topo::Link& l) { return l.type == type; })) / 2;
}

std::size_t count_nodes(const topo::Topology& t, topo::NodeType type) {
  return static_cast<std::size_t>(
      std::count_if(t.nodes().begin(), t.nodes().end(), [&](const topo::Node& n) { return n.type == type; }));
}

}  // namespace

TEST_CASE("lowering ring all-reduce: a stream per receiving rank, peer copies, staged reductions, events between ranks",
          "[cuda][lowering]") {
  const sched::Rank n = 4;
  const auto s = build(sched::Collective::AllReduce, "ring", n, 4096);
  const auto plan = cuda::lower_schedule(s, 2);
  REQUIRE(plan.streams.size() == n);
  REQUIRE(plan.ops.size() == s.ops.size());
  CHECK(plan.devices == 2);
  for (std::uint32_t r = 0; r < n; ++r) {
    CHECK(plan.streams[r].rank == r);
    CHECK(plan.streams[r].device == r / 2);
    CHECK(plan.streams[r].staging_bytes == 4096 / n);  // one chunk S/N is received to reduce at a time
  }
  CHECK(plan.buffer_bytes[0] == 4096);
  std::size_t reduces = 0;
  for (sched::OpId i = 0; i < s.ops.size(); ++i) {
    const auto& op = plan.ops[i];
    CHECK(plan.streams[op.stream].rank == s.ops[i].dst);  // the receiver pulls
    CHECK(op.peer);
    CHECK(op.copy);
    CHECK(op.copy_from.owner == s.ops[i].src);
    if (op.reduce) {
      ++reduces;
      CHECK(op.copy_to.area == cuda::Area::Staging);
      CHECK(op.reduce_from.area == cuda::Area::Staging);
      CHECK(op.reduce_into.owner == s.ops[i].dst);
    } else {
      CHECK(op.copy_to.owner == s.ops[i].dst);
      CHECK(op.copy_to.area == cuda::Area::Data);
    }
  }
  // Ring all-reduce: N(N-1) reducing sends in the reduce-scatter, N(N-1) copies in the all-gather.
  CHECK(reduces == n * (n - 1));
  // Every op but those of the last step (2(N-1)) is forwarded by its receiver at the next step, on
  // the receiver's stream, so exactly those N(2(N-1) - 1) ops record an event.
  CHECK(plan.events == n * (2 * (n - 1) - 1));
  check_deps_kept(s, plan);
}

TEST_CASE("lowering keeps every dependency of every algorithm, with one wait per other stream at most",
          "[cuda][lowering]") {
  const auto registry = algo::builtin_registry();
  for (const auto& info : registry.all()) {
    for (const sched::Rank n : {2u, 3u, 8u}) {
      algo::Request req{info.collective, n, 3 * 4096};
      req.element_size = 4;
      sched::Schedule s;
      try {
        s = info.build(req);
      } catch (const algo::AlgorithmError&) {
        continue;  // e.g. an algorithm that needs a power of two
      }
      INFO(info.name << " " << sched::collective_name(info.collective) << " N=" << n);
      const auto plan = cuda::lower_schedule(s, 1);
      CHECK(plan.devices == s.total_ranks());
      check_deps_kept(s, plan);
    }
  }
}

TEST_CASE("lowering a local reduce: a kernel on the rank's own chunks, no copy", "[cuda][lowering]") {
  const auto s = build(sched::Collective::AllReduce, "ps", 3, 3 * 1024);
  const auto plan = cuda::lower_schedule(s, 1);
  const auto local = std::find_if(s.ops.begin(), s.ops.end(),
                                  [](const sched::Op& op) { return op.src == op.dst && op.combine == sched::Combine::Reduce; });
  REQUIRE(local != s.ops.end());
  const auto& op = plan.ops[static_cast<std::size_t>(local - s.ops.begin())];
  CHECK_FALSE(op.copy);
  CHECK_FALSE(op.peer);
  CHECK(op.reduce);
  CHECK(op.reduce_from.owner == local->src);
  CHECK(op.reduce_from.area != cuda::Area::Staging);
}

TEST_CASE("lowering rejects 0 ranks per GPU", "[cuda][lowering]") {
  const auto s = build(sched::Collective::AllReduce, "ring", 2, 1024);
  CHECK_THROWS_AS(cuda::lower_schedule(s, 0), std::invalid_argument);
  CHECK(cuda::lower_schedule(s, 8).devices == 1);  // 8 ranks per GPU: both ranks on GPU 0
}

TEST_CASE("nvidia-smi topo -m of a DGX A100: NV12 everywhere is one NVSwitch at 12 x 25 GB/s", "[cuda][smi]") {
  const auto t = cuda::parse_nvidia_smi_topo(data_file("dgx-a100.txt"));
  REQUIRE(t.gpus.size() == 8);
  CHECK(t.nics == 12);
  CHECK(t.links[0][1].path == cuda::SmiPath::NvLink);
  CHECK(t.links[0][1].nvlinks == 12);
  CHECK(t.links[3][3].path == cuda::SmiPath::Self);
  CHECK(t.numa == std::vector<std::string>{"3", "3", "1", "1", "7", "7", "5", "5"});
  const auto topology = topology_of("dgx-a100.txt");
  CHECK(topology.gpus().size() == 8);
  CHECK(count_nodes(topology, topo::NodeType::Switch) == 1);
  CHECK(count_links(topology, topo::LinkType::Pcie) == 0);
  // The bundled dgx-a100 (A100 datasheet: 600 GB/s bidirectional) has the same injection bandwidth.
  const auto reference = topo::load_topology("dgx-a100");
  CHECK(topology.out_bandwidth(topology.gpus()[0]) == reference.out_bandwidth(reference.gpus()[0]));
}

TEST_CASE("nvidia-smi topo -m of a DGX H100 with an underlined header: NV18 is 450 GB/s per GPU", "[cuda][smi]") {
  const auto t = cuda::parse_nvidia_smi_topo(data_file("dgx-h100.txt"));
  REQUIRE(t.gpus.size() == 8);
  CHECK(t.nics == 18);
  CHECK(t.links[7][0].nvlinks == 18);
  const auto topology = topology_of("dgx-h100.txt");
  const auto reference = topo::load_topology("dgx-h100");
  CHECK(topology.out_bandwidth(topology.gpus()[5]) == reference.out_bandwidth(reference.gpus()[5]));
  CHECK(topology.out_bandwidth(topology.gpus()[5]) == Bandwidth{450'000'000'000ull * 8});
}

TEST_CASE("nvidia-smi topo -m of a PCIe server: GPUs on two CPUs joined by UPI", "[cuda][smi]") {
  const auto t = cuda::parse_nvidia_smi_topo(data_file("pcie-8gpu.txt"));
  CHECK(t.links[0][3].path == cuda::SmiPath::Node);
  CHECK(t.links[0][4].path == cuda::SmiPath::Sys);
  const auto topology = topology_of("pcie-8gpu.txt");
  CHECK(count_nodes(topology, topo::NodeType::Cpu) == 2);
  CHECK(count_nodes(topology, topo::NodeType::Switch) == 0);  // NODE: each GPU on its own root port
  CHECK(count_links(topology, topo::LinkType::Pcie) == 8);
  CHECK(count_links(topology, topo::LinkType::UPI) == 1);
  // GPU0 -> its CPU -> the other CPU -> GPU4; GPU0 -> CPU -> GPU3 within a socket.
  CHECK(topology.shortest_route(topology.gpus()[0], topology.gpus()[4]).size() == 3);
  CHECK(topology.shortest_route(topology.gpus()[0], topology.gpus()[3]).size() == 2);
}

TEST_CASE("nvidia-smi topo -m of a DGX-1: the hybrid cube-mesh as direct NVLinks, sockets from CPU affinity",
          "[cuda][smi]") {
  const auto t = cuda::parse_nvidia_smi_topo(data_file("dgx1-v100.txt"));
  CHECK(t.nics == 4);
  CHECK(t.numa[0] == "0-19,40-59");
  const auto topology = topology_of("dgx1-v100.txt");
  // Each GPU has NVLinks to 4 peers (6 links: V100 datasheet, 300 GB/s bidirectional): 16 pairs.
  CHECK(count_links(topology, topo::LinkType::NvLink) == 16);
  CHECK(count_nodes(topology, topo::NodeType::Cpu) == 2);
  // 6 NVLinks at 25 GB/s plus the PCIe x16 Gen4 link of 31.5 GB/s.
  CHECK(topology.out_bandwidth(topology.gpus()[0]) == Bandwidth{(150'000'000'000ull + 31'500'000'000ull) * 8});
  CHECK(topology.shortest_route(topology.gpus()[0], topology.gpus()[3]).size() == 1);  // NV2
  // SYS in the matrix, but two NVLinks away (GPU0-GPU1-GPU5), shorter than PCIe-UPI-PCIe (3 links).
  CHECK(topology.shortest_route(topology.gpus()[0], topology.gpus()[5]).size() == 2);
}

TEST_CASE("nvidia-smi topo -m of 8 RTX 4090 on two sockets, stock driver: every pair through host memory",
          "[cuda][smi][transport]") {
  auto t = cuda::parse_nvidia_smi_topo(data_file("rtx4090-8gpu-2socket.txt"));
  REQUIRE(t.gpus.size() == 8);
  CHECK(t.nics == 0);
  // What topo --detect adds from CUDA and /proc/cpuinfo: no peer access on the stock driver, AMD CPUs.
  t.p2p.assign(8, false);
  t.cpu_vendor = cuda::cpu_vendor_from_cpuinfo("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n");
  REQUIRE(t.cpu_vendor == "amd");
  const auto topology = topo::parse_topology_json(cuda::smi_topology_json(t, cuda::LinkSpeeds{}, "t", ""), "t", "t");
  CHECK(count_nodes(topology, topo::NodeType::Cpu) == 2);
  CHECK(count_links(topology, topo::LinkType::UPI) == 1);
  CHECK_FALSE(topology.node(topology.gpus()[0]).p2p);
  // The same pairs as the bundled machine: 24 within a socket (PHB), 32 across (SYS), all SHM.
  const auto s = topo::transport_summary(topology);
  const auto bundled = topo::transport_summary(topo::load_topology("rtx4090-pcie-8gpu-2socket"));
  CHECK(topo::transport_summary_text(s) == topo::transport_summary_text(bundled));
  CHECK(s.by_transport[static_cast<std::size_t>(topo::Transport::Shm)] == 56);
  CHECK(s.by_path[static_cast<std::size_t>(topo::PathType::Sys)] == 32);
}

TEST_CASE("nvidia-smi topo -m of H100 PCIe pairs on NVLink bridges: NV12 is 300 GB/s, P2P on the bridge, SHM between pairs",
          "[cuda][smi][transport]") {
  auto t = cuda::parse_nvidia_smi_topo(data_file("h100-pcie-nvlbridge.txt"));
  REQUIRE(t.gpus.size() == 4);
  CHECK(t.links[0][1].nvlinks == 12);
  CHECK(t.links[1][2].path == cuda::SmiPath::Node);
  t.cpu_vendor = cuda::cpu_vendor_from_cpuinfo("vendor_id\t: GenuineIntel\n");
  cuda::LinkSpeeds gen5;
  gen5.pcie_bytes_per_s = 63'000'000'000;  // PCIe Gen5 x16 (PCI-SIG), as the H100 PCIe has
  const auto topology = topo::parse_topology_json(cuda::smi_topology_json(t, gen5, "t", ""), "t", "t");
  // Two bridges of 12 NVLink 4 links x 25 GB/s (H100 PCIe product brief: 600 GB/s bidirectional).
  CHECK(count_links(topology, topo::LinkType::NvLink) == 2);
  CHECK(topology.out_bandwidth(topology.gpus()[0]) == Bandwidth{(300'000'000'000ull + 63'000'000'000ull) * 8});
  const auto reference = topo::load_topology("h100-pcie-nvlbridge");
  CHECK(topology.out_bandwidth(topology.gpus()[0]) == reference.out_bandwidth(reference.gpus()[0]));
  CHECK(topo::transport_summary_text(topo::transport_summary(topology)) ==
        topo::transport_summary_text(topo::transport_summary(reference)));
  CHECK(topology.node(*topology.find_node("cpu0")).vendor == topo::CpuVendor::Intel);
  CHECK(cuda::cpu_vendor_from_cpuinfo("processor : 0\nCPU implementer : 0x41\n") == "arm");
  CHECK(cuda::cpu_vendor_from_cpuinfo("").empty());
}

TEST_CASE("nvidia-smi topo -m: malformed matrices are one-line errors", "[cuda][smi]") {
  const std::string header = "\tGPU0\tGPU1\tCPU Affinity\n";
  CHECK_THROWS_WITH(cuda::parse_nvidia_smi_topo("No devices were found\n"), Catch::Contains("no header line with GPU0"));
  CHECK_THROWS_WITH(cuda::parse_nvidia_smi_topo(header + "GPU0\tX\tNVx\t0-3\nGPU1\tNV1\tX\t0-3\n"),
                    Catch::Contains("line 2: row GPU0 column GPU1: found \"NVx\""));
  CHECK_THROWS_WITH(cuda::parse_nvidia_smi_topo(header + "GPU0\tX\n"), Catch::Contains("row GPU0 has 1 cells"));
  CHECK_THROWS_WITH(cuda::parse_nvidia_smi_topo(header + "GPU0\tX\tPIX\t0-3\n"), Catch::Contains("no row for GPU1"));
  CHECK_THROWS_WITH(cuda::parse_nvidia_smi_topo(header + "GPU0\tPIX\tPIX\t0-3\nGPU1\tPIX\tX\t0-3\n"),
                    Catch::Contains("does not have X in its own column"));
  // Two GPUs under one switch: a switch, a CPU, three PCIe links.
  const auto ok = cuda::parse_nvidia_smi_topo(header + "GPU0\t X \tPIX\t0-3\nGPU1\tPIX\t X \t0-3\n");
  const auto t = topo::parse_topology_json(cuda::smi_topology_json(ok, {}, "two", ""), "two", "two");
  CHECK(count_links(t, topo::LinkType::Pcie) == 3);
}

TEST_CASE("one GPU as K virtual ranks at the measured copy rate", "[cuda][smi]") {
  const auto t = topo::parse_topology_json(cuda::virtual_gpu_topology_json(8, 1'000'000'000'000, 2000, "v", ""), "v", "v");
  REQUIRE(t.gpus().size() == 8);
  CHECK(t.out_bandwidth(t.gpus()[7]) == Bandwidth{8'000'000'000'000});
  // A rank-to-rank hop crosses two links of half the 2 ns copy latency each.
  for (const auto l : t.shortest_route(t.gpus()[0], t.gpus()[1])) CHECK(t.link(l).latency == Time{1000});
  CHECK(cuda::nvlink_bytes_per_s(6) == 20'000'000'000);
  CHECK(cuda::nvlink_bytes_per_s(9) == 25'000'000'000);
}

TEST_CASE("validate and topo --detect check their flags first, then exit 3 with one line without a GPU",
          "[cuda][cli]") {
  using testing::check_bad_input;
  using testing::run_collsim;
  check_bad_input({"validate"}, "--size: missing");
  check_bad_input({"validate", "--size", "1M", "--dtype", "float64"}, "--dtype: found \"float64\", expected float32");
  check_bad_input({"validate", "--size", "6", "--dtype", "float32"}, "expected a positive multiple of 4");
  check_bad_input({"validate", "--size", "1M", "--format", "xml"}, "--format: found \"xml\"");
  check_bad_input({"validate", "--size", "1M", "--algorithm", "nope"}, "--algorithm");
  check_bad_input({"validate", "--size", "1M", "--nccl", "--collective", "alltoall", "--algorithm", "direct"},
                  "--nccl: NCCL has no alltoall");
  check_bad_input({"validate", "--size", "1M", "--nccl", "--ranks-per-gpu", "8"}, "--nccl: NCCL runs one rank per GPU");
  check_bad_input({"validate", "--size", "1M", "-b", "1M"}, "--size: given with -b");
  // Topology and rank flags are input too: checked before any GPU is looked for (exit 2, not 3).
  check_bad_input({"validate", "--size", "1M", "--ranks", "0"}, "--ranks");
  check_bad_input({"validate", "--size", "1M", "--gpus", "4", "--fabric", "bogus"}, "--fabric");
  check_bad_input({"validate", "--size", "1M", "no-such-topology"}, "no-such-topology");
  check_bad_input({"validate", "--size", "1M", "--gpus", "4", "--fabric", "switch", "--ranks", "5"}, "--ranks");
  check_bad_input({"topo", "--ranks-per-gpu", "2"}, "--ranks-per-gpu: given without --detect");
  check_bad_input({"topo", "--detect", "dgx-a100"}, "--detect: given with a topology");
  if (!cuda::probe().devices.empty()) return;  // a GPU machine: the GPU tests cover the rest
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"validate", "--size", "1M", "--ranks-per-gpu", "8"}, {"topo", "--detect"}}) {
    const auto run = run_collsim(args);
    CHECK(run.code == 3);
    CHECK(run.out.empty());
    CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
    CHECK_THAT(run.err, Catch::StartsWith("collsim: error: " + args[0]));
    const bool built = cuda::probe().built;
    CHECK_THAT(run.err, Catch::Contains(built ? "no GPU" : "built without CUDA support"));
  }
}
}  // namespace cuda_validation_test
