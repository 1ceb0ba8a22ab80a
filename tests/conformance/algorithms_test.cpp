// Every registered algorithm, for every collective it supports, computes that collective: the
// symbolic replay (sim/schedule/collective_spec.hpp) holds for N in 1..17, 24, 31, 32, 33, 64 and
// sizes of 0, 1 byte, S < N, S not divisible by N, and 1 GiB (SimGrid's "every algorithm through
// one test" pattern; issue "Algorithm library", acceptance 1).
#include <catch2/catch.hpp>

#include "algorithms/registry.hpp"
#include "validation/symbolic_replay.hpp"

using namespace collsim;

TEST_CASE("every algorithm computes its collective", "[conformance]") {
  const auto registry = algo::builtin_registry();
  std::vector<sched::Rank> ranks;
  for (sched::Rank n = 1; n <= 17; ++n) ranks.push_back(n);
  for (sched::Rank n : {24u, 31u, 32u, 33u, 64u}) ranks.push_back(n);
  for (const auto& info : registry.all()) {
    for (sched::Rank n : ranks) {
      std::vector<Bytes> sizes{0, 1, n > 1 ? n - 1 : 1, 3 * Bytes{n} + 1, 1000003};
      if (n % 8 == 0 || n <= 3) sizes.push_back(Bytes{1} << 30);
      for (Bytes size : sizes) {
        for (sched::Rank root : {sched::Rank{0}, n - 1}) {
          algo::Request req{info.collective, n, size};
          req.root = root;
          INFO(info.name << " " << sched::collective_name(info.collective) << ", N = " << n << ", S = " << size
                         << ", root = " << root);
          const auto schedule = info.build(req);
          CHECK(schedule.nranks == n);
          CHECK(schedule.collective == info.collective);
          CHECK(schedule.algorithm == info.name);
          const auto problem = validation::verify_symbolic(schedule);
          CHECK(problem == std::nullopt);
          if (info.collective != sched::Collective::Broadcast && info.collective != sched::Collective::Reduce) break;
        }
      }
    }
  }
}
