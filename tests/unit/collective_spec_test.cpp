// CollectiveSpec's allocation-free check (requirement() and meets(), which verify_symbolic uses on
// every slot) against the plain reference: comparing a content with the expansion required()
// builds. Every built-in algorithm's schedule at a few N gives the slots; the contents tried at
// each slot are the required one, the slot's input, undefined, and the required one with one
// contribution dropped, doubled or moved to another chunk or rank, so both answers occur.
#include <catch2/catch.hpp>

#include "algorithms/host_grid.hpp"
#include "algorithms/registry.hpp"
#include "sim/schedule/collective_spec.hpp"
#include "validation/symbolic_replay.hpp"

// One namespace per test file: CI builds the tests as unity sources (.ci/run), where each file's
// helpers would otherwise meet the other files'.
namespace collective_spec_test {

using namespace collsim;
using sched::Content;
using sched::Contribution;

namespace {

/// Contents that differ from `want` in one way each (none when `want` is empty).
std::vector<Content> near_misses(const Content& want) {
  std::vector<Content> out;
  if (want.empty()) return out;
  out.push_back(Content(want.begin() + 1, want.end()));  // one contribution missing
  Content doubled = want;
  doubled.insert(doubled.begin(), want.front());  // one contribution twice
  out.push_back(doubled);
  Content other_chunk = want;
  other_chunk.back().chunk += 1;
  out.push_back(other_chunk);
  Content other_rank = want;
  other_rank.back().rank += 1;
  out.push_back(other_rank);
  return out;
}

}  // namespace

TEST_CASE("meets() says what comparing with required() says, on every slot of every algorithm", "[schedule][spec]") {
  const auto registry = algo::builtin_registry();
  int agreed_yes = 0, agreed_no = 0;
  for (const auto& info : registry.all()) {
    for (sched::Rank n : {1u, 2u, 3u, 5u, 8u}) {
      algo::Request req{info.collective, n, 1000003};
      if (info.needs_hosts) req.hosts = algo::equal_hosts(n, n % 2 == 0 ? 2 : 1);
      INFO(info.name << " " << sched::collective_name(info.collective) << ", N = " << n);
      const auto schedule = info.build(req);
      const sched::CollectiveSpec spec(schedule);
      for (sched::Rank r = 0; r < schedule.total_ranks(); ++r) {
        for (sched::ChunkId c = 0; c < schedule.chunks.size(); ++c) {
          const auto want = spec.required(r, c);
          const auto need = spec.requirement(r, c);
          std::vector<std::optional<Content>> tries{std::nullopt, spec.initial(r, c)};
          if (want) {
            tries.push_back(want);
            for (auto& miss : near_misses(*want)) tries.emplace_back(std::move(miss));
          }
          for (const auto& got : tries) {
            const bool reference = !want || got == want;
            const bool fast = spec.meets(got ? validation::ContentView(*got) : std::nullopt, need);
            INFO("rank " << r << " chunk " << c << ": " << validation::content_text(got, schedule.header.nranks));
            CHECK(fast == reference);
            ++(reference ? agreed_yes : agreed_no);
          }
        }
      }
    }
  }
  CHECK(agreed_yes > 1000);
  CHECK(agreed_no > 1000);
}

TEST_CASE("a failed check names the slot, what it holds and what the collective needs", "[schedule][spec]") {
  // Ring all-reduce on 3 ranks without its last op (an all-gather copy): the receiver keeps the
  // partial sum it had before, two of the three contributions, where A, B and C's are all needed.
  const auto registry = algo::builtin_registry();
  auto s = registry.find(sched::Collective::AllReduce, "ring").build(algo::Request{sched::Collective::AllReduce, 3, 3000});
  const sched::Op last = s.ops.back();
  s.ops.pop_back();
  s.dep_offsets.pop_back();
  const auto problem = validation::verify_symbolic(s);
  REQUIRE(problem.has_value());
  const std::string slot = "rank " + std::to_string(last.dst) + " chunk " + std::to_string(last.dst_chunk) + ": holds ";
  CHECK_THAT(*problem, Catch::StartsWith(slot));
  const std::string c = std::to_string(last.dst_chunk);
  CHECK_THAT(*problem, Catch::EndsWith("needs A" + c + "+B" + c + "+C" + c));
}
}  // namespace collective_spec_test
