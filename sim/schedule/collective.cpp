#include "sim/schedule/collective.hpp"

#include <array>
#include <cctype>

namespace collsim::sched {
namespace {
constexpr std::array kAll{Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
                          Collective::Broadcast, Collective::Reduce,        Collective::AllToAll};
}  // namespace

std::span<const Collective> all_collectives() noexcept { return kAll; }

std::string_view collective_name(Collective c) noexcept {
  switch (c) {
    case Collective::AllReduce: return "allreduce";
    case Collective::ReduceScatter: return "reducescatter";
    case Collective::AllGather: return "allgather";
    case Collective::Broadcast: return "broadcast";
    case Collective::Reduce: return "reduce";
    case Collective::AllToAll: return "alltoall";
  }
  return "?";
}

std::optional<Collective> parse_collective(std::string_view text) {
  std::string key;
  for (char ch : text) {
    if (ch == '-' || ch == '_') continue;
    key += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  for (Collective c : kAll)
    if (collective_name(c) == key) return c;
  return std::nullopt;
}

std::string collective_names_list() {
  std::string out;
  for (Collective c : kAll) {
    if (!out.empty()) out += ", ";
    out += collective_name(c);
  }
  return out;
}

Ratio bandwidth_factor(Collective c, std::uint32_t nranks) noexcept {
  const std::uint64_t n = nranks;
  switch (c) {
    case Collective::AllReduce: return {2 * (n - 1), n};
    case Collective::ReduceScatter:
    case Collective::AllGather:
    case Collective::AllToAll: return {n - 1, n};
    case Collective::Broadcast:
    case Collective::Reduce: return {1, 1};
  }
  return {0, 1};
}

}  // namespace collsim::sched
