#include "topologies/nvls.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "topologies/gpu_models.hpp"

namespace collsim::topo {
namespace {

// The switches `gpu` has a link to, in link order.
std::vector<NodeId> switches_of(const Topology& topology, NodeId gpu) {
  std::vector<NodeId> out;
  for (LinkId l : topology.out_links(gpu)) {
    const NodeId to = topology.link(l).to;
    if (topology.node(to).type == NodeType::Switch) out.push_back(to);
  }
  return out;
}

std::optional<NvlsDomain> refuse(std::string* why, std::string reason) {
  if (why) *why = std::move(reason);
  return std::nullopt;
}

}  // namespace

std::optional<NvlsDomain> nvls_domain(const Topology& topology, std::span<const NodeId> gpus, std::string* why) {
  if (gpus.empty()) return refuse(why, "no GPU");
  std::vector<NodeId> shared = switches_of(topology, gpus[0]);
  for (NodeId g : gpus.subspan(1)) {
    const auto mine = switches_of(topology, g);
    std::erase_if(shared, [&](NodeId s) { return std::find(mine.begin(), mine.end(), s) == mine.end(); });
    if (shared.empty())
      return refuse(why, fmt::format("{} has no link to a switch that {} reaches directly", topology.node(g).id,
                                     topology.node(gpus[0]).id));
  }
  if (shared.empty()) return refuse(why, fmt::format("{} has no link to a switch", topology.node(gpus[0]).id));
  std::string last_reason;
  for (NodeId s : shared) {
    const Node& sw = topology.node(s);
    if (sw.nvls == false) {
      last_reason = fmt::format("switch {} says \"nvls\": false", sw.id);
      continue;
    }
    NvlsDomain d{s, 1.0, 16};
    bool all_known = true;
    std::optional<double> efficiency;
    std::optional<GpuArch> arch;
    std::string missing;
    for (NodeId g : gpus) {
      const Node& gpu = topology.node(g);
      const auto a = gpu_arch(gpu.model);
      const auto e = a ? nvls_efficiency(*a) : std::nullopt;
      if (!e) {
        all_known = false;
        if (missing.empty())
          missing = gpu.model.empty() ? fmt::format("{} gives no model", gpu.id)
                                      : fmt::format("{} ({}) has no NVLink SHARP", gpu.id, gpu.model);
        continue;
      }
      efficiency = efficiency ? std::min(*efficiency, *e) : *e;
      if (!arch || *a < *arch) arch = a;
    }
    // A switch that leaves "nvls" unset reduces only when it is an NVSwitch of NVLS GPUs.
    if (!sw.nvls) {
      if (!all_known) {
        last_reason = fmt::format("switch {}: {}, and the switch does not say \"nvls\": true", sw.id, missing);
        continue;
      }
      const bool nvswitch_links = std::all_of(gpus.begin(), gpus.end(), [&](NodeId g) {
        for (LinkId l : topology.out_links(g))
          if (topology.link(l).to == s) return topology.link(l).type == LinkType::NvSwitch;
        return false;
      });
      if (!nvswitch_links) {
        last_reason = fmt::format("switch {} is not linked to the GPUs by nvswitch links and does not say \"nvls\": true",
                                  sw.id);
        continue;
      }
    }
    if (efficiency && all_known) d.efficiency = *efficiency;
    if (arch && all_known) {
      d.channels = nvls_channels(*arch);
      d.arch = arch;
    }
    return d;
  }
  return refuse(why, last_reason);
}

}  // namespace collsim::topo
