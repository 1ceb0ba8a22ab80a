#include "validation/cuda/detect_topology.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/units/saturate.hpp"

namespace collsim::cuda {
namespace {

// The output of `nvidia-smi topo -m`, or "" when it cannot run.
std::string run_nvidia_smi() {
  std::string text;
  FILE* pipe = popen("nvidia-smi topo -m 2>/dev/null", "r");
  if (pipe == nullptr) return text;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, n);
  return pclose(pipe) == 0 ? text : std::string();
}

// /proc/cpuinfo's text, or "" where it cannot be read.
std::string read_cpuinfo() {
  std::ifstream in("/proc/cpuinfo");
  std::ostringstream text;
  text << in.rdbuf();
  return in ? text.str() : std::string();
}

}  // namespace

SmiTopology topology_from_peer_access(const Probe& probe) {
  SmiTopology t;
  const std::size_t n = probe.devices.size();
  for (std::size_t i = 0; i < n; ++i) {
    t.gpus.push_back(fmt::format("GPU{}", i));
    t.numa.emplace_back();
    t.links.emplace_back();
    for (std::size_t j = 0; j < n; ++j)
      t.links[i].push_back(i == j                         ? SmiLink{SmiPath::Self, 0}
                           : probe.peer_access[i][j] != 0 ? SmiLink{SmiPath::Pix, 0}
                                                          : SmiLink{SmiPath::Sys, 0});
  }
  return t;
}

std::string detect_topology_json(const Probe& probe, std::uint32_t ranks_per_gpu) {
  const DeviceInfo& gpu0 = probe.devices.front();
  const auto count = static_cast<std::uint32_t>(probe.devices.size());
  if (ranks_per_gpu > 1 || count == 1) {
    const std::uint32_t ranks = ranks_per_gpu * count;
    const CopyMeasure m = measure_copy(0, static_cast<int>(ranks_per_gpu), std::uint64_t{64} << 20);
    // Measured doubles (NaN or huge when a copy misbehaves) clamp instead of converting out of range;
    // the loader then refuses a rate of 0.
    const auto rate = saturating_cast<std::uint64_t>(m.bytes_per_s);
    const auto latency_ps = saturating_cast<std::uint64_t>(m.latency_s * 1e12);
    return virtual_gpu_topology_json(
        ranks, rate, latency_ps, "detected",
        fmt::format("Detected: {} virtual GPUs, {} per {} (compute capability {}.{}). Each link has the copy rate "
                    "measured on GPU 0 with {} 64 MiB device-to-device copies at once ({:.1f} GB/s each) and half "
                    "of a 4-byte copy's time ({:.2f} us) as latency.",
                    ranks, ranks_per_gpu, gpu0.name, gpu0.cc_major, gpu0.cc_minor, ranks_per_gpu, m.bytes_per_s / 1e9,
                    m.latency_s * 1e6));
  }
  LinkSpeeds speeds;
  speeds.nvlink_bytes_per_s = nvlink_bytes_per_s(gpu0.cc_major);
  std::string source = "nvidia-smi topo -m";
  SmiTopology t;
  try {
    const std::string text = run_nvidia_smi();
    if (text.empty()) throw SmiParseError("nvidia-smi did not run");
    t = parse_nvidia_smi_topo(text);
    if (t.gpus.size() != count) throw SmiParseError("nvidia-smi shows other GPUs than CUDA");
  } catch (const SmiParseError& e) {
    t = topology_from_peer_access(probe);
    source = fmt::format("CUDA peer access ({})", e.what());
  }
  // Which GPUs have P2P at all (the stock driver gives GeForce cards none), and the CPU's maker: the
  // transports NCCL would pick follow from them.
  t.p2p.assign(count, true);
  for (std::size_t i = 0; i < count && count > 1; ++i) {
    bool any = false;
    for (std::size_t j = 0; j < count; ++j) any = any || (i != j && probe.peer_access[i][j] != 0);
    t.p2p[i] = any;
  }
  t.cpu_vendor = cpu_vendor_from_cpuinfo(read_cpuinfo());
  return smi_topology_json(
      t, speeds, "detected",
      fmt::format("Detected: {} x {} (compute capability {}.{}), links from {}; NVLink {} GB/s per link and "
                  "direction, PCIe {} GB/s, UPI {} GB/s (nominal rates, validation/cuda/nvidia_smi_topo.hpp).",
                  count, gpu0.name, gpu0.cc_major, gpu0.cc_minor, source, static_cast<double>(speeds.nvlink_bytes_per_s) / 1e9,
                  static_cast<double>(speeds.pcie_bytes_per_s) / 1e9, static_cast<double>(speeds.upi_bytes_per_s) / 1e9));
}

}  // namespace collsim::cuda
