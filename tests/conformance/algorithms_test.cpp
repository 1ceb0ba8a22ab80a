// Every registered algorithm, for every collective it supports, computes that collective: the
// symbolic replay (sim/schedule/collective_spec.hpp) holds for N in 1..17, 24, 31, 32, 33, 64 and
// sizes of 0, 1 byte, S < N, S not divisible by N, and 1 GiB (64 MiB past 17 ranks) (SimGrid's "every algorithm through
// one test" pattern; issue "Algorithm library", acceptance 1). Algorithms that use hosts
// (hierarchical, nccl-tree) run on every grid of K hosts × L ranks with K·L = N (L = 1 and K = 1
// included), and without hosts unless they need them; the others run once, without hosts.
#include <catch2/catch.hpp>

#include "algorithms/host_grid.hpp"
#include "algorithms/registry.hpp"
#include "validation/symbolic_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace algorithms_test {

using namespace collsim;

namespace {

/// The host layouts to try for `algorithm` on `n` ranks: every K dividing n for one that uses
/// hosts (and "hosts unknown" too unless it needs them), else only "hosts unknown".
std::vector<std::vector<std::uint32_t>> host_layouts(const algo::AlgorithmInfo& algorithm, sched::Rank n) {
  if (!algorithm.uses_hosts) return {{}};
  std::vector<std::vector<std::uint32_t>> layouts;
  if (!algorithm.needs_hosts) layouts.emplace_back();
  for (sched::Rank k = 1; k <= n; ++k)
    if (n % k == 0) layouts.push_back(algo::equal_hosts(n, k));
  return layouts;
}

}  // namespace

// Hidden from Catch's default run ("[.]"): its own CTest entry, algorithms_conformance (tests/CMakeLists.txt).
TEST_CASE("every algorithm computes its collective", "[.][conformance][algorithms-conformance]") {
  const auto registry = algo::builtin_registry();
  std::vector<sched::Rank> ranks;
  for (sched::Rank n = 1; n <= 17; ++n) ranks.push_back(n);
  for (sched::Rank n : {24u, 31u, 32u, 33u, 64u}) ranks.push_back(n);
  for (const auto& info : registry.all()) {
    for (sched::Rank n : ranks) {
      // The large size pipelines many chunks: 1 GiB up to 17 ranks, 64 MiB past them (still 128
      // chunks of 512 KiB, or two per rank's share at 64 ranks), where 1 GiB took 70 % of this
      // test's time (3.8 of 5.4 s; 81 s under CI's sanitizers) and checked nothing more.
      const Bytes large = n <= 17 ? Bytes{1} << 30 : Bytes{64} << 20;
      const std::vector<Bytes> sizes{0, 1, n > 1 ? n - 1 : 1, 3 * Bytes{n} + 1, 1000003, large};
      const bool rooted = info.collective == sched::Collective::Broadcast || info.collective == sched::Collective::Reduce;
      const std::vector<sched::Rank> roots = rooted ? std::vector<sched::Rank>{0, n - 1} : std::vector<sched::Rank>{0};
      for (const auto& hosts : host_layouts(info, n))
        for (Bytes size : sizes)
          for (sched::Rank root : roots) {
            algo::Request req{info.collective, n, size};
            req.root = root;
            req.hosts = hosts;
            INFO(info.name << " " << sched::collective_name(info.collective) << ", N = " << n << ", S = " << size
                           << ", root = " << root << ", hosts = " << (hosts.empty() ? 0 : hosts.back() + 1));
            const auto schedule = info.build(req);
            CHECK(schedule.header.nranks == n);
            CHECK(schedule.header.collective == info.collective);
            CHECK(schedule.algorithm == info.name);
            const auto problem = validation::verify_symbolic(schedule);
            CHECK(problem == std::nullopt);
          }
    }
  }
}
}  // namespace algorithms_test
