// `nvidia-smi topo -m`: its GPU-to-GPU matrix read from text, and a topology JSON (the format of
// topologies/load_json.hpp) that models it.
//
// The matrix (NVIDIA's legend, printed under it): X self; NV# a bonded set of # NVLinks; PIX at
// most one PCIe bridge; PXB several PCIe bridges, no host bridge; PHB a PCIe host bridge (the
// CPU); NODE host bridges within one NUMA node; SYS across NUMA nodes (QPI/UPI). Columns after the
// GPUs are NICs (NIC0 or mlx5_0), then "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"; cells are
// separated by tabs (newer nvidia-smi underlines the header with ANSI escapes, which are dropped).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace collsim::cuda {

/// The matrix text is not what nvidia-smi prints; what() gives the line number and what was found.
class SmiParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How two GPUs are connected, in NVIDIA's words (closest first).
enum class SmiPath : std::uint8_t { Self, NvLink, Pix, Pxb, Phb, Node, Sys };

/// One cell of the GPU matrix.
struct SmiLink {
  SmiPath path = SmiPath::Sys;
  std::uint32_t nvlinks = 0;  ///< # of NV#; 0 otherwise
};

/// The GPU part of `nvidia-smi topo -m`.
struct SmiTopology {
  std::vector<std::string> gpus;               ///< "GPU0", ... in column order
  std::vector<std::vector<SmiLink>> links;     ///< [i][j], square, Self on the diagonal
  /// Per GPU: its "NUMA Affinity", or its "CPU Affinity" where there is no NUMA column ("" when
  /// neither is there or it is N/A). GPUs with the same text hang off the same CPU socket.
  std::vector<std::string> numa;
  std::uint32_t nics = 0;                      ///< NIC columns seen
  /// Per GPU: whether it has peer-to-peer access to some other GPU (cudaDeviceCanAccessPeer; the
  /// matrix does not say, topo --detect asks CUDA); empty: all have. A GPU without becomes
  /// "p2p": false, so NCCL's SHM through host memory is simulated for it.
  std::vector<bool> p2p;
  /// The CPUs' maker for the cpu nodes' "vendor" ("intel", "amd", "arm"; "" unknown: left out). It
  /// sets NCCL's default P2P level (topologies/transport.hpp).
  std::string cpu_vendor;
};

/// Reads the output of `nvidia-smi topo -m`. Throws SmiParseError when there is no GPU header, a
/// GPU row is missing or short, or a cell is not one of X, NV#, PIX, PXB, PHB, NODE, SYS.
[[nodiscard]] SmiTopology parse_nvidia_smi_topo(std::string_view text);

/// Rates and latencies the matrix does not say.
struct LinkSpeeds {
  std::uint64_t nvlink_bytes_per_s = 25'000'000'000;  ///< per NVLink and direction (NVLink 2-4: 25 GB/s)
  std::uint64_t pcie_bytes_per_s = 31'500'000'000;    ///< per GPU's PCIe link (Gen4 x16: 31.5 GB/s)
  std::uint64_t upi_bytes_per_s = 41'600'000'000;     ///< between CPU sockets
  std::string nvlink_latency = "300ns";               ///< per link, as the bundled DGX topologies
  std::string pcie_latency = "500ns";
  std::string upi_latency = "1us";
};

/// "intel", "amd" or "arm" from the text of /proc/cpuinfo (its vendor_id, or aarch64's "CPU
/// implementer"); "" when it says none of them.
[[nodiscard]] std::string cpu_vendor_from_cpuinfo(std::string_view text);

/// Per-NVLink rate of a GPU of compute capability `major` (per direction): 20 GB/s for NVLink 1
/// (P100, 6.x), 25 GB/s for NVLink 2, 3 and 4 (V100 7.x, A100 8.x, H100 9.x); NVIDIA's V100, A100
/// and H100 datasheets (300, 600, 900 GB/s bidirectional for 6, 12, 18 links).
[[nodiscard]] std::uint64_t nvlink_bytes_per_s(int cc_major) noexcept;

/// A topology JSON document for `t`:
///  * every GPU pair NV# with the same # (three GPUs or more): one NVSwitch, each GPU linked to it
///    at # · nvlink rate (DGX A100: NV12, 300 GB/s; DGX H100: NV18, 450 GB/s), no PCIe (never on a route);
///  * otherwise a direct nvlink link per NV# pair (an NVLink bridge: H100 PCIe pairs show NV12, 300
///    GB/s), plus the PCIe tree: GPUs joined by PIX/PXB share a PCIe switch, those joined by
///    PIX/PXB/PHB/NODE a CPU, and CPUs are joined pairwise by UPI.
/// GPUs without P2P (t.p2p) get "p2p": false and the cpu nodes t.cpu_vendor, so the transports
/// (P2P, SHM) are chosen per pair as NCCL chooses them.
/// `name` and `description` (left out when empty) go into the document. Precondition: t has at
/// least one GPU.
[[nodiscard]] std::string smi_topology_json(const SmiTopology& t, const LinkSpeeds& speeds, std::string_view name,
                                            std::string_view description);

/// A one-GPU machine as `ranks` virtual GPUs ("gpu0".."gpuK-1") on one switch (the GPU's memory),
/// each link at `copy_bytes_per_s` (the measured per-copy rate when K copies run at once) with half
/// of `copy_latency_ps` per link, so a rank-to-rank hop costs one measured copy latency.
[[nodiscard]] std::string virtual_gpu_topology_json(std::uint32_t ranks, std::uint64_t copy_bytes_per_s,
                                                    std::uint64_t copy_latency_ps, std::string_view name,
                                                    std::string_view description);

}  // namespace collsim::cuda
