#include "sim/network/network_model.hpp"

#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/network/fifo_link_model.hpp"
#include "sim/network/flow_model.hpp"

namespace collsim::net {
namespace {
constexpr std::array<std::string_view, 2> kNames{"fifo", "flow"};
}

std::span<const std::string_view> network_model_names() noexcept { return kNames; }

std::unique_ptr<NetworkModel> make_network_model(std::string_view name, const topo::Topology& topology) {
  if (name == "fifo") return std::make_unique<FifoLinkModel>(topology);
  if (name == "flow") return std::make_unique<FlowModel>(topology);
  throw std::invalid_argument(fmt::format("unknown network model \"{}\", expected one of: {}", name,
                                          fmt::join(kNames, ", ")));
}

}  // namespace collsim::net
