// Every registered algorithm, for every collective it supports, computes that collective on real
// numbers: the CPU replay (validation/cpu_replay.hpp) verifies every rank's buffers for N in 1..17,
// 24, 31, 32, 33, 64 and sizes of 1 byte, S < N, S = 4N+1 (divisible neither by N nor by an element size),
// S = 4N+4 (N+1 float32 elements: parts of whole elements, not whole bytes/N), and one every element
// type can cut; the schedule is built for the replayed type's element size (as --dtype does), so
// every S that is a multiple of it is replayed on real elements; a few MiB for every algorithm; 1 GiB through the sampled path
// (issue "Algorithm library", point 5 and acceptance 1).
#include <catch2/catch.hpp>

#include <array>
#include <bit>
#include <numeric>

#include "algorithms/host_grid.hpp"
#include "algorithms/registry.hpp"
#include "validation/cpu_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace cpu_replay_test {

using namespace collsim;
using namespace collsim::validation;

namespace {

constexpr std::array kTypes{DType::Float32, DType::Float64, DType::Float16, DType::BFloat16, DType::Int32, DType::UInt8};
constexpr std::array kOps{ReduceOp::Sum, ReduceOp::Max, ReduceOp::Sum, ReduceOp::Min, ReduceOp::Sum, ReduceOp::Prod};

std::vector<sched::Rank> rank_counts() {
  std::vector<sched::Rank> ranks;
  for (sched::Rank n = 1; n <= 17; ++n) ranks.push_back(n);
  for (sched::Rank n : {24u, 31u, 32u, 33u, 64u}) ranks.push_back(n);
  return ranks;
}

/// Algorithms that use hosts (hierarchical, nccl-tree) run on K hosts of N/K, K the middle divisor
/// of N (2 × 2 for 4, 4 × 3 for 12, N × 1 for a prime), so most N have several hosts of several
/// ranks. The symbolic conformance test (algorithms_test.cpp) runs every grid.
std::vector<std::uint32_t> hosts_for(const algo::AlgorithmInfo& info, sched::Rank n) {
  if (!info.uses_hosts) return {};
  std::vector<sched::Rank> divisors;
  for (sched::Rank k = 1; k <= n; ++k)
    if (n % k == 0) divisors.push_back(k);
  return algo::equal_hosts(n, divisors[divisors.size() / 2]);
}

ReplayReport replay(const algo::AlgorithmInfo& info, sched::Rank n, Bytes size, sched::Rank root,
                    const ReplayOptions& options) {
  algo::Request req{info.collective, n, size};
  req.root = root;
  req.element_size = dtype_size(options.dtype);
  req.hosts = hosts_for(info, n);
  return replay_on_cpu(info.build(req), options);
}

}  // namespace

TEST_CASE("every algorithm x collective x N x small size is verified on CPU buffers", "[conformance][cpu-replay]") {
  const auto registry = algo::builtin_registry();
  std::size_t turn = 0;
  for (const auto& info : registry.all()) {
    for (const sched::Rank n : rank_counts()) {
      // Chunks here are S/N, S/p2 (halving-doubling; p2 the largest power of two <= N), S/2
      // (double-tree), S (one ps server) or 512 KiB pieces: with S = 8·lcm(N, p2, 2) every one is a
      // whole number of 8-byte elements, so each element type is replayed as itself.
      const Bytes p2 = std::bit_floor(Bytes{n});
      const Bytes aligned = 8 * std::lcm(std::lcm(Bytes{n}, p2), Bytes{2});
      for (const Bytes size : {Bytes{1}, Bytes{n - 1}, 4 * Bytes{n} + 1, 4 * Bytes{n} + 4, aligned}) {
        for (const sched::Rank root : {sched::Rank{0}, n - 1}) {
          const DType dtype = kTypes[turn % kTypes.size()];
          const ReduceOp op = kOps[(turn / kTypes.size()) % kOps.size()];
          ++turn;
          const auto r = replay(info, n, size, root, {.dtype = dtype, .op = op});
          INFO(info.name << " " << sched::collective_name(info.collective) << ", N = " << n << ", S = " << size
                         << ", root = " << root << ", " << dtype_name(dtype) << " " << reduce_op_name(op) << ": "
                         << r.problem);
          CHECK(r.verified);
          CHECK(r.coverage == ReplayCoverage::Full);
          // Parts and chunks are cut in whole elements whenever S is a whole number of them.
          if (size % dtype_size(dtype) == 0) CHECK(r.dtype == dtype);
          // 4N+1 is odd: never a whole number of elements wider than a byte (all-to-all moves only
          // N·floor(S/N) = 4N bytes, which may be).
          if (size == 4 * Bytes{n} + 1 && dtype_size(dtype) > 1 && info.collective != sched::Collective::AllToAll)
            CHECK(r.dtype == DType::UInt8);
          if (info.collective != sched::Collective::Broadcast && info.collective != sched::Collective::Reduce) break;
        }
      }
    }
  }
}

TEST_CASE("every algorithm verified on a few MiB, element by element", "[conformance][cpu-replay]") {
  const auto registry = algo::builtin_registry();
  std::size_t turn = 0;
  for (const auto& info : registry.all()) {
    // 2 MiB on 4 ranks in a rotating type; 1 MiB + 3 on 3 ranks (uint8, S not divisible by N).
    const DType dtype = kTypes[turn++ % kTypes.size()];
    const auto even = replay(info, 4, Bytes{2} << 20, 3, {.dtype = dtype});
    INFO(info.name << " " << sched::collective_name(info.collective) << " " << dtype_name(dtype) << ": " << even.problem);
    CHECK(even.verified);
    CHECK(even.dtype == dtype);
    CHECK(even.coverage == ReplayCoverage::Full);
    const auto odd = replay(info, 3, (Bytes{1} << 20) + 3, 1, {});
    INFO(odd.problem);
    CHECK(odd.verified);
    CHECK(odd.dtype == DType::UInt8);
  }
}

TEST_CASE("every algorithm verified at 1 GiB through the sampled path", "[conformance][cpu-replay]") {
  const auto registry = algo::builtin_registry();
  for (const auto& info : registry.all()) {
    for (const sched::Rank n : {sched::Rank{3}, sched::Rank{8}}) {
      const auto r = replay(info, n, Bytes{1} << 30, n - 1, {.dtype = DType::BFloat16});
      INFO(info.name << " " << sched::collective_name(info.collective) << ", N = " << n << ": " << r.problem);
      CHECK(r.verified);
      CHECK(r.coverage == ReplayCoverage::Sampled);
      CHECK(r.symbolic);
    }
  }
}
}  // namespace cpu_replay_test
