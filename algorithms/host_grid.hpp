// The ranks as a grid of hosts × ranks per host, for algorithms that treat the links inside a
// host and between hosts differently (hierarchical all-reduce).
#pragma once

#include <string_view>

#include "algorithms/registry.hpp"

namespace collsim::algo {

/// K hosts of L ranks each, N = K·L: rank r is local rank r mod L of host r / L.
struct HostGrid {
  sched::Rank hosts = 1;           ///< K
  sched::Rank ranks_per_host = 1;  ///< L
  /// The rank that is local rank `local` of host `host`: host·L + local.
  [[nodiscard]] constexpr sched::Rank rank(sched::Rank host, sched::Rank local) const noexcept {
    return host * ranks_per_host + local;
  }
};

/// Reads request.hosts as a grid. It must name a host for every rank, the ranks of one host must be
/// consecutive (host h holds ranks h·L .. h·L+L-1) and every host must hold the same number L of
/// ranks. One host (K = 1) and one rank per host (L = 1) are valid grids. Throws AlgorithmError,
/// whose message starts with `algorithm` and says which rule the request breaks: no hosts known (a
/// single-node topology or one whose GPUs name no host), a size other than nranks, a host number
/// out of order, a host whose ranks are not consecutive, or hosts of different sizes.
HostGrid host_grid(const Request& request, std::string_view algorithm);

/// host_grid(request, algorithm), or one host of every rank when request.hosts is empty (the
/// topology names no hosts), for algorithms that run on one host as well (nvls-tree, collnet).
HostGrid host_grid_or_one_host(const Request& request, std::string_view algorithm);

/// The hosts of `nranks` ranks in `nhosts` equal consecutive groups (rank r on host r / (N/K)),
/// as a topology made by `--nodes K` gives them. Throws AlgorithmError when nhosts is 0 or does not
/// divide nranks.
std::vector<std::uint32_t> equal_hosts(sched::Rank nranks, sched::Rank nhosts);

}  // namespace collsim::algo
