#include "algorithms/ps_allreduce.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/schedule/builder.hpp"

namespace collsim::algo {
namespace {

// The chunk table: data chunk k = part k; then one scratch receive chunk per pushing participant
// (N of them for an external server, N-1 for a rank server, which does not push to itself) for
// each part size split_even produces (in elements when S is a whole number of them, else bytes):
// the larger for parts below E mod K, the smaller for the others.
// Servers are distinct ranks, so servers of parts of one size share the receive chunk ids.
struct PsChunks {
  std::vector<sched::Chunk> chunks;
  sched::ChunkId large_slots = 0;  // first receive chunk for parts of the larger size
  sched::ChunkId small_slots = 0;  // first receive chunk for parts of the smaller size
  std::uint32_t large_parts = 0;   // parts of the larger size (E mod K, E = S in cut units)
  bool external = false;

  // The chunk in which the server of part k receives the push of participant w (w != k for a rank
  // server).
  [[nodiscard]] sched::ChunkId slot(std::uint32_t k, sched::Rank w) const {
    return (k < large_parts ? large_slots : small_slots) + (external || w < k ? w : w - 1);
  }
};

PsChunks ps_chunks(const Request& request, std::uint32_t shards, sched::Rank n, bool external) {
  PsChunks t;
  t.chunks = split_parts(request, shards);
  const Bytes unit = sched::cut_unit(request.size, request.element_size);
  t.large_parts = static_cast<std::uint32_t>(request.size / unit % shards);
  t.external = external;
  const sched::Rank senders = external ? n : n - 1;
  Bytes offset = 0;
  const auto add_slots = [&](Bytes bytes) {
    const auto first = static_cast<sched::ChunkId>(t.chunks.size());
    for (sched::Rank w = 0; w < senders; ++w, offset += bytes)
      t.chunks.push_back(sched::Chunk{offset, bytes, sched::Buffer::Scratch, 0});
    return first;
  };
  const Bytes large = t.chunks.front().size;
  const Bytes small = t.chunks.back().size;  // read before the receive slots are appended
  if (t.large_parts > 0) t.large_slots = add_slots(large);
  if (t.large_parts < shards) t.small_slots = add_slots(small);
  return t;
}

}  // namespace

sched::Schedule build_ps_allreduce(const Request& request) {
  const sched::Rank n = request.nranks;
  const std::uint32_t shards = request.ps_shards;
  if (shards < 1 || shards > n)
    throw std::invalid_argument(fmt::format(
        "ps: the number of servers (ps_shards) must be between 1 and the number of ranks N = {}, got {}", n, shards));
  const bool external = request.ps_external_server;
  const auto table = ps_chunks(request, shards, n, external);
  const sched::ScheduleHeader header = schedule_header(request, sched::Collective::AllReduce, external ? shards : 0);
  sched::ScheduleBuilder b(header, table.chunks);
  const auto server = [&](std::uint32_t k) -> sched::Rank { return external ? n + k : k; };
  // A rank server holds part k already; only the others push it and get it back.
  const auto pushes = [&](std::uint32_t k, sched::Rank w) { return external || w != k; };

  for (std::uint32_t k = 0; k < shards; ++k)
    for (sched::Rank w = 0; w < n; ++w)
      if (pushes(k, w)) b.send(w, k, server(k), table.slot(k, w), sched::Combine::Copy, 1);
  for (std::uint32_t k = 0; k < shards; ++k) {
    bool empty = external;  // an external server's part k starts undefined: the first push is copied
    for (sched::Rank w = 0; w < n; ++w) {
      if (!pushes(k, w)) continue;
      b.send(server(k), table.slot(k, w), server(k), k, empty ? sched::Combine::Copy : sched::Combine::Reduce, 1);
      empty = false;
    }
  }
  for (std::uint32_t k = 0; k < shards; ++k)
    for (sched::Rank w = 0; w < n; ++w)
      if (pushes(k, w)) b.send(server(k), k, w, k, sched::Combine::Copy, 2);
  if (n > 1 || external) {
    b.add_phase("push", 1, 1);
    b.add_phase("pull", 2, 2);
  }
  return std::move(b).build("ps");
}

}  // namespace collsim::algo
