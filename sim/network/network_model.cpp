#include "sim/network/network_model.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/network/fifo_link_model.hpp"
#include "sim/network/flow_model.hpp"
#include "sim/units/enum_names.hpp"

namespace collsim::net {
namespace {
enum class ModelKind : std::uint8_t { Fifo, Flow };
constexpr auto kModels = make_enum_names<ModelKind>({{ModelKind::Fifo, "fifo"}, {ModelKind::Flow, "flow"}});
static_assert(kModels.dense() && kModels.distinct());
constexpr auto kNames = kModels.names();
}  // namespace

std::span<const std::string_view> network_model_names() noexcept { return kNames; }

bool network_folds_copies(std::string_view name) noexcept {
  const std::optional<ModelKind> kind = kModels.parse(name);
  if (!kind) return false;
  switch (*kind) {
    case ModelKind::Fifo: return false;  // FifoLinkModel serialises copies
    case ModelKind::Flow: return true;   // FlowModel::folds_copies
  }
  return false;
}

std::unique_ptr<NetworkModel> make_network_model(std::string_view name, const topo::Topology& topology) {
  const std::optional<ModelKind> kind = kModels.parse(name);
  if (!kind) throw std::invalid_argument(fmt::format("unknown network model \"{}\", expected one of: {}", name, kModels.list()));
  switch (*kind) {
    case ModelKind::Fifo: return std::make_unique<FifoLinkModel>(topology);
    case ModelKind::Flow: return std::make_unique<FlowModel>(topology);
  }
  return nullptr;
}

}  // namespace collsim::net
