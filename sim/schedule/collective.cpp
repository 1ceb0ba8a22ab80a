#include "sim/schedule/collective.hpp"

namespace collsim::sched {
namespace {
static_assert(kCollectiveNames.dense() && kCollectiveNames.distinct());
constexpr auto kAll = kCollectiveNames.values();
}  // namespace

std::span<const Collective> all_collectives() noexcept { return kAll; }

std::string_view collective_name(Collective c) noexcept { return kCollectiveNames.name(c); }

std::optional<Collective> parse_collective(std::string_view text) { return kCollectiveNames.parse(text); }

std::string collective_names_list() { return kCollectiveNames.list(); }

Ratio bandwidth_factor(Collective c, std::uint32_t nranks) noexcept {
  const std::uint64_t n = nranks;
  switch (c) {
    case Collective::AllReduce: return {2 * (n - 1), n};
    case Collective::ReduceScatter:
    case Collective::AllGather:
    case Collective::AllToAll: return {n - 1, n};
    case Collective::Broadcast:
    case Collective::Reduce: return {1, 1};
    case Collective::SendRecv: return {n > 1 ? 1u : 0u, 1};
  }
  return {0, 1};
}

}  // namespace collsim::sched
