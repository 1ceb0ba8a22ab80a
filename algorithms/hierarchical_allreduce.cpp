#include "algorithms/hierarchical_allreduce.hpp"

#include "algorithms/host_grid.hpp"
#include "sim/schedule/builder.hpp"

namespace collsim::algo {

sched::Schedule build_hierarchical_allreduce(const Request& request) {
  const HostGrid grid = host_grid(request, "hierarchical");
  const sched::Rank n = request.nranks;
  const sched::Rank hosts = grid.hosts;
  const sched::Rank local = grid.ranks_per_host;
  sched::ScheduleBuilder b(schedule_header(request, sched::Collective::AllReduce), split_parts(request, n));
  const auto mod = [](std::int64_t x, sched::Rank m) { return static_cast<sched::Rank>(((x % m) + m) % m); };
  const auto sub_part = [hosts](sched::Rank part, sched::Rank k) -> sched::ChunkId { return part * hosts + k; };
  // One ring step inside every host: local rank l sends local part (l - shift) mod L, chunk by chunk.
  const auto intra_step = [&](std::int64_t shift, sched::Combine combine, std::uint32_t step) {
    for (sched::Rank h = 0; h < hosts; ++h)
      for (sched::Rank l = 0; l < local; ++l) {
        const sched::Rank part = mod(std::int64_t{l} - shift, local);
        for (sched::Rank k = 0; k < hosts; ++k)
          b.send(grid.rank(h, l), grid.rank(h, (l + 1) % local), sub_part(part, k), combine, step);
      }
  };
  // One ring step between hosts for every local index l: host h sends sub-part (h - shift) mod K of part l.
  const auto inter_step = [&](std::int64_t shift, sched::Combine combine, std::uint32_t step) {
    for (sched::Rank h = 0; h < hosts; ++h)
      for (sched::Rank l = 0; l < local; ++l)
        b.send(grid.rank(h, l), grid.rank((h + 1) % hosts, l), sub_part(l, mod(std::int64_t{h} - shift, hosts)),
               combine, step);
  };

  std::uint32_t step = 0;
  for (std::uint32_t s = 1; s < local; ++s) intra_step(s, sched::Combine::Reduce, ++step);
  for (std::uint32_t s = 1; s < hosts; ++s) inter_step(s, sched::Combine::Reduce, ++step);
  for (std::uint32_t s = 1; s < hosts; ++s) inter_step(std::int64_t{s} - 1, sched::Combine::Copy, ++step);
  for (std::uint32_t s = 1; s < local; ++s) intra_step(std::int64_t{s} - 1, sched::Combine::Copy, ++step);

  const std::uint32_t intra = local - 1, inter = hosts - 1;
  if (intra > 0) b.add_phase("intra-host reduce-scatter", 1, intra);
  if (inter > 0) {
    b.add_phase("inter-host reduce-scatter", intra + 1, intra + inter);
    b.add_phase("inter-host all-gather", intra + inter + 1, intra + 2 * inter);
  }
  if (intra > 0) b.add_phase("intra-host all-gather", intra + 2 * inter + 1, 2 * intra + 2 * inter);
  return std::move(b).build("hierarchical");
}

}  // namespace collsim::algo
