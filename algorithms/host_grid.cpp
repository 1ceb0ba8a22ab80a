#include "algorithms/host_grid.hpp"

#include <fmt/format.h>

namespace collsim::algo {

HostGrid host_grid(const Request& request, std::string_view algorithm) {
  const sched::Rank n = request.nranks;
  const auto& hosts = request.hosts;
  if (hosts.empty())
    throw AlgorithmError(fmt::format(
        "{} needs to know which host each rank runs on, and no hosts are known (a single-node topology, or GPUs "
        "without \"host\"); use a multi-node topology such as dgx-a100-2node or a generated one with --nodes K",
        algorithm));
  if (hosts.size() != n)
    throw AlgorithmError(fmt::format("{}: hosts are given for {} ranks, expected one for each of the {} ranks",
                                     algorithm, hosts.size(), n));
  std::vector<sched::Rank> size;  // ranks of each host seen so far, by host number
  for (sched::Rank r = 0; r < n; ++r) {
    const std::uint32_t h = hosts[r];
    if (r > 0 && h == hosts[r - 1]) {
      ++size[h];
      continue;
    }
    if (h < size.size())
      throw AlgorithmError(fmt::format("{}: the ranks of host {} are not consecutive (rank {} is on it again after "
                                       "other hosts); it needs each host's ranks in one consecutive block",
                                       algorithm, h, r));
    if (h != size.size())
      throw AlgorithmError(fmt::format("{}: rank {} is on host {}, expected host {} (hosts are numbered in order of "
                                       "first appearance)", algorithm, r, h, size.size()));
    size.push_back(1);
  }
  for (std::size_t h = 1; h < size.size(); ++h)
    if (size[h] != size[0])
      throw AlgorithmError(fmt::format("{}: host {} holds {} rank{} and host 0 holds {}; it needs the same number of "
                                       "ranks on every host", algorithm, h, size[h], size[h] == 1 ? "" : "s", size[0]));
  return HostGrid{static_cast<sched::Rank>(size.size()), size[0]};
}

HostGrid host_grid_or_one_host(const Request& request, std::string_view algorithm) {
  return request.hosts.empty() ? HostGrid{1, request.nranks} : host_grid(request, algorithm);
}

std::vector<std::uint32_t> equal_hosts(sched::Rank nranks, sched::Rank nhosts) {
  if (nhosts == 0 || nranks % nhosts != 0)
    throw AlgorithmError(fmt::format("{} ranks cannot be spread evenly over {} hosts", nranks, nhosts));
  std::vector<std::uint32_t> hosts(nranks);
  const sched::Rank per_host = nranks / nhosts;
  for (sched::Rank r = 0; r < nranks; ++r) hosts[r] = r / per_host;
  return hosts;
}

}  // namespace collsim::algo
