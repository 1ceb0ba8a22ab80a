#include "algorithms/channels.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/schedule/header_of.hpp"

namespace collsim::algo {

namespace {

// L when the ranks sit on two or more hosts in consecutive blocks of L ranks each and the
// collective has no root (all-reduce), else 0: then channel c rotates every host's block by c.
// Why: NCCL's search finds as many concurrent flows as it can, each entering a node from a NIC,
// going through every GPU over NVLink and leaving through another GPU's NIC, so an all-reduce's
// rings use all the NICs (NCCL maintainers in NVIDIA/nccl#412 and NVIDIA/nccl-tests#277). Without
// the rotation every channel would cross between nodes through the same two NICs.
std::uint32_t equal_host_blocks(const Request& request) {
  const auto& hosts = request.hosts;
  if (request.collective != sched::Collective::AllReduce || hosts.size() != request.nranks || hosts.empty() ||
      hosts.back() == 0)
    return 0;
  std::uint32_t per_host = 0;
  while (per_host < hosts.size() && hosts[per_host] == 0) ++per_host;
  if (hosts.size() % per_host != 0) return 0;
  for (std::size_t r = 0; r < hosts.size(); ++r)
    if (hosts[r] != r / per_host) return 0;
  return per_host;
}

}  // namespace

bool splits_over_channels(sched::Collective collective) noexcept {
  return collective == sched::Collective::AllReduce || collective == sched::Collective::Broadcast ||
         collective == sched::Collective::Reduce;
}

sched::Schedule build_with_channels(const AlgorithmInfo& algorithm, const Request& request, std::uint32_t channels) {
  if (channels == 0) throw std::invalid_argument("channels: expected at least 1");
  if (channels == 1) return algorithm.build(request);
  if (!splits_over_channels(request.collective))
    throw AlgorithmError(fmt::format("{} channels: {} cuts its buffer into per-rank parts; expected 1 channel "
                                     "(channels split allreduce, broadcast and reduce)",
                                     channels, sched::collective_name(request.collective)));
  const sched::Rank n = request.nranks;
  const bool one_host =
      std::all_of(request.hosts.begin(), request.hosts.end(), [](std::uint32_t h) { return h == 0; });
  const std::uint32_t per_host = equal_host_blocks(request);
  // With nothing to share (S = 0) one channel runs. Shares are whole elements, as each channel's
  // own parts are (NCCL splits counts of elements over channels).
  const auto shares = sched::split_even(request.size, request.size == 0 ? 1 : channels, request.element_size);

  sched::Schedule out;
  bool first = true;
  for (std::uint16_t c = 0; c < shares.size(); ++c) {
    if (shares[c].size == 0 && request.size > 0) continue;  // more channels than bytes
    Request part = request;
    part.size = shares[c].size;
    // A share of an S counted in bytes stays in bytes, even when it is a whole number of elements.
    part.element_size = sched::cut_unit(request.size, request.element_size);
    sched::Schedule s = algorithm.build(part);
    const bool reverse = c % 2 == 1 && one_host;
    const sched::Rank shift = per_host > 1 ? c % per_host : 0;
    const auto map = [&](sched::Rank r) -> sched::Rank {
      if (r >= n) return r;  // helpers keep their place
      if (shift > 0) return r - r % per_host + (r % per_host + shift) % per_host;
      if (!reverse) return r;
      return static_cast<sched::Rank>((2 * std::uint64_t{request.root} + n - r) % n);
    };
    if (first) {
      out = sched::header_of(s);
      out.header.size = request.size;
      first = false;
    }
    const auto chunk_base = static_cast<sched::ChunkId>(out.chunks.size());
    const auto op_base = static_cast<sched::OpId>(out.ops.size());
    for (sched::Chunk ch : s.chunks) {
      ch.offset += shares[c].offset;
      out.chunks.push_back(ch);
    }
    for (sched::OpId i = 0; i < s.ops.size(); ++i) {
      sched::Op op = s.ops[i];
      op.src = map(op.src);
      op.dst = map(op.dst);
      op.src_chunk += chunk_base;
      op.dst_chunk += chunk_base;
      op.channel = c;
      out.ops.push_back(op);
      for (sched::OpId d : s.deps_of(i)) out.deps.push_back(d + op_base);
      out.dep_offsets.push_back(static_cast<std::uint32_t>(out.deps.size()));
    }
    out.steps = std::max(out.steps, s.steps);
  }
  return out;
}

}  // namespace collsim::algo
