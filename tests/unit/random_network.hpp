// Random schedules and random topologies for the flow model's equivalence tests
// (flow_lazy_test.cpp, flow_reference_test.cpp).
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include <fmt/format.h>

#include "sim/schedule/builder.hpp"
#include "topologies/load_json.hpp"

namespace collsim::testing {

/// A random schedule on `ranks` ranks: `ops` sends between random ranks (some local), of random
/// chunks, on random channels below `channels`. With `even` the six chunks have one size (so ends
/// often fall on one picosecond: the ties a model must keep in order), else random sizes of 1 to
/// 60 kB. ScheduleBuilder derives the dependencies from the chunks each op reads and writes, so ops
/// form chains and fans of every shape.
inline sched::Schedule random_schedule(std::mt19937_64& rng, std::uint32_t ranks, std::uint32_t ops,
                                       std::uint16_t channels, bool even = true) {
  const std::uint32_t chunks = 6;
  std::vector<sched::Chunk> cut;
  Bytes total = 0;
  const Bytes even_bytes = 10'000 * (1 + rng() % 4);
  for (std::uint32_t c = 0; c < chunks; ++c) {
    const Bytes size = even ? even_bytes : 1'000 + rng() % 59'000;
    cut.push_back(sched::Chunk{total, size});
    total += size;
  }
  sched::ScheduleBuilder b(sched::Collective::AllGather, ranks, total, cut);
  for (std::uint32_t i = 0; i < ops; ++i) {
    const auto src = static_cast<sched::Rank>(rng() % ranks);
    auto dst = static_cast<sched::Rank>(rng() % ranks);
    const auto src_chunk = static_cast<sched::ChunkId>(rng() % chunks);
    auto dst_chunk = static_cast<sched::ChunkId>(rng() % chunks);
    if (dst == src && dst_chunk == src_chunk) dst_chunk = (dst_chunk + 1) % chunks;  // a local op: two chunks
    if (cut[src_chunk].size != cut[dst_chunk].size) dst_chunk = src_chunk;  // an op moves one chunk's bytes
    if (dst == src && dst_chunk == src_chunk) dst = (dst + 1) % ranks;
    const auto combine = rng() % 2 ? sched::Combine::Copy : sched::Combine::Reduce;
    b.send(src, src_chunk, dst, dst_chunk, combine, 1 + i / ranks, static_cast<std::uint16_t>(rng() % channels));
  }
  return std::move(b).build("random");
}

/// A random cluster of `hosts` hosts of `per_host` GPUs: each GPU on its host's switch, some GPU
/// pairs of a host joined directly (NVLink), some links half duplex, the host switches on one or
/// two spine switches (so routes have 1 to 6 hops), every link with its own random bandwidth (1 to
/// 64 GB/s) and latency (0 to 3 us). Heterogeneous rates matter: a bug that gives a flow a
/// bandwidth from another route shows only where routes have different bottlenecks.
/// Returned as a topology file's text (for tests that run the CLI on it); random_cluster loads it.
inline std::string random_cluster_json(std::mt19937_64& rng, std::uint32_t hosts, std::uint32_t per_host) {
  std::string nodes, links;
  const auto link = [&](const std::string& a, const std::string& b, const char* type) {
    // Drawn one by one: the order in which function arguments are evaluated is unspecified.
    const bool half = rng() % 6 == 0;
    const auto gbps = 1 + rng() % 64;
    const auto ns = (rng() % 4) * 750;
    links += fmt::format(R"({}{{"from":"{}","to":"{}","type":"{}","bandwidth":"{}GB/s","latency":"{}ns"{}}})",
                         links.empty() ? "" : ",", a, b, type, gbps, ns, half ? R"(,"duplex":"half")" : "");
  };
  const std::uint32_t spines = hosts > 2 && rng() % 2 ? 2 : 1;
  for (std::uint32_t s = 0; s < spines; ++s) nodes += fmt::format(R"({{"id":"spine{}","type":"switch"}},)", s);
  if (spines == 2) link("spine0", "spine1", "network");
  for (std::uint32_t h = 0; h < hosts; ++h) {
    nodes += fmt::format(R"({{"id":"sw{}","type":"switch"}},)", h);
    if (hosts > 1) link(fmt::format("sw{}", h), fmt::format("spine{}", h % spines), "network");
    for (std::uint32_t g = 0; g < per_host; ++g) {
      const auto id = fmt::format("gpu{}", h * per_host + g);
      nodes += fmt::format(R"({{"id":"{}","type":"gpu","host":"host{}"}},)", id, h);
      link(id, fmt::format("sw{}", h), "nvswitch");
      if (g > 0 && rng() % 3 == 0) link(fmt::format("gpu{}", h * per_host + g - 1), id, "nvlink");
    }
  }
  nodes.pop_back();
  return fmt::format(R"({{"nodes":[{}],"links":[{}]}})", nodes, links);
}

/// random_cluster_json's cluster, loaded.
inline topo::Topology random_cluster(std::mt19937_64& rng, std::uint32_t hosts, std::uint32_t per_host) {
  return topo::parse_topology_json(random_cluster_json(rng, hosts, per_host), "random.json", "random");
}

}  // namespace collsim::testing
