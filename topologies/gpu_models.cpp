#include "topologies/gpu_models.hpp"

#include <array>
#include <cctype>
#include <string>

namespace collsim::topo {
namespace {

struct GpuModel {
  std::string_view prefix;  // lower case; the longest matching prefix wins
  std::uint64_t bytes_per_s;
};

// Datasheet memory bandwidths (NVIDIA A100, H100, H200, B200, L40S, V100 datasheets).
constexpr std::array<GpuModel, 11> kModels{{
    {"a100-sxm4-80gb", 2'039'000'000'000},
    {"a100-sxm4-40gb", 1'555'000'000'000},
    {"a100-pcie-80gb", 1'935'000'000'000},
    {"a100", 1'555'000'000'000},
    {"h100-sxm", 3'350'000'000'000},
    {"h100-pcie", 2'000'000'000'000},
    {"h100", 3'350'000'000'000},
    {"h200", 4'800'000'000'000},
    {"b200", 8'000'000'000'000},
    {"l40s", 864'000'000'000},
    {"v100", 900'000'000'000},
}};

}  // namespace

std::optional<Bandwidth> gpu_memory_bandwidth(std::string_view model) {
  std::string lower;
  for (char c : model) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const GpuModel* best = nullptr;
  for (const auto& m : kModels)
    if (lower.starts_with(m.prefix) && (!best || m.prefix.size() > best->prefix.size())) best = &m;
  if (!best) return std::nullopt;
  return Bandwidth{best->bytes_per_s * 8};
}

std::optional<Bandwidth> default_reduce_bandwidth(std::string_view model) {
  const auto memory = gpu_memory_bandwidth(model);
  if (!memory) return std::nullopt;
  return Bandwidth{memory->bits_per_s / 3};
}

}  // namespace collsim::topo
