#include "topologies/gpu_models.hpp"

#include <array>
#include <cctype>
#include <string>

namespace collsim::topo {
namespace {

struct GpuModel {
  std::string_view prefix;  // lower case; the longest matching prefix wins (spaces match dashes)
  std::string_view name;    // as messages print it
  std::uint64_t bytes_per_s;
  GpuArch arch;
};

// Datasheet memory bandwidths (NVIDIA A100, H100, H200, B200, GB200 NVL72, L40S, GeForce RTX 4090, V100 datasheets;
// GB200: 8 TB/s of HBM3e per Blackwell GPU) and architectures (compute capability, CUDA
// programming guide: 7.0 Volta, 8.0/8.9 Ampere/Ada, 9.0 Hopper, 10.0 Blackwell).
constexpr std::array<GpuModel, 14> kModels{{
    {"a100-sxm4-80gb", "A100-SXM4-80GB", 2'039'000'000'000, GpuArch::Ampere},
    {"a100-sxm4-40gb", "A100-SXM4-40GB", 1'555'000'000'000, GpuArch::Ampere},
    {"a100-pcie-80gb", "A100-PCIe-80GB", 1'935'000'000'000, GpuArch::Ampere},
    {"a100", "A100", 1'555'000'000'000, GpuArch::Ampere},
    {"h100-sxm", "H100-SXM", 3'350'000'000'000, GpuArch::Hopper},
    {"h100-pcie", "H100-PCIe", 2'000'000'000'000, GpuArch::Hopper},
    {"h100", "H100", 3'350'000'000'000, GpuArch::Hopper},
    {"h200", "H200", 4'800'000'000'000, GpuArch::Hopper},
    {"b200", "B200", 8'000'000'000'000, GpuArch::Blackwell},
    {"gb200", "GB200", 8'000'000'000'000, GpuArch::Blackwell},
    {"l40s", "L40S", 864'000'000'000, GpuArch::Ampere},
    {"rtx 4090", "RTX 4090", 1'008'000'000'000, GpuArch::Ampere},
    {"geforce rtx 4090", "GeForce RTX 4090", 1'008'000'000'000, GpuArch::Ampere},
    {"v100", "V100", 900'000'000'000, GpuArch::Volta},
}};

// Lower case, with spaces and underscores as dashes: "H100 PCIe" and "h100-pcie" name one GPU.
std::string normalized(std::string_view model) {
  std::string out;
  for (char c : model) out += c == ' ' || c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const GpuModel* find_model(std::string_view model) {
  const std::string name = normalized(model);
  // nvidia-smi's names start with the vendor: "NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 4090".
  const std::string_view bare = std::string_view(name).starts_with("nvidia-") ? std::string_view(name).substr(7) : name;
  const GpuModel* best = nullptr;
  for (const auto& m : kModels)
    if (bare.starts_with(normalized(m.prefix)) && (!best || m.prefix.size() > best->prefix.size())) best = &m;
  return best;
}

}  // namespace

bool known_gpu_model(std::string_view model) { return find_model(model) != nullptr; }

std::string known_gpu_model_names() {
  std::string names;
  for (const auto& m : kModels) {
    if (!names.empty()) names += ", ";
    names += m.name;
  }
  return names;
}

std::optional<Bandwidth> gpu_memory_bandwidth(std::string_view model) {
  const GpuModel* m = find_model(model);
  if (!m) return std::nullopt;
  return Bandwidth{m->bytes_per_s * 8};
}

std::optional<GpuArch> gpu_arch(std::string_view model) {
  const GpuModel* m = find_model(model);
  if (!m) return std::nullopt;
  return m->arch;
}

std::optional<double> nvls_efficiency(GpuArch arch) noexcept {
  switch (arch) {
    case GpuArch::Hopper: return 0.85;
    case GpuArch::Blackwell: return 0.74;
    default: return std::nullopt;
  }
}

std::uint32_t nvls_channels(GpuArch arch, std::uint32_t nodes, double nic_GBps) noexcept {
  if (arch != GpuArch::Blackwell) return 16;
  if (nodes <= 1) return 24;
  if (nic_GBps >= 96.0 || (nodes > 2 && nic_GBps >= 48.0)) return 24;
  return 32;
}

std::optional<Bandwidth> default_reduce_bandwidth(std::string_view model) {
  const auto memory = gpu_memory_bandwidth(model);
  if (!memory) return std::nullopt;
  return Bandwidth{memory->bits_per_s / 3};
}

}  // namespace collsim::topo
